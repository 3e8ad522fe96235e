//! `sieve-filter utf8`.

use crate::util::{fails, json_lines, ok};

sieve_test!(utf8_counts_each_class_and_writes_cleaned_bytes, |dir| {
    // One of each worked example of the seven classes, plus valid Arabic.
    let input =
        b"a\xC0\x80b\xC1\x81c\xF0\x82\x82\xACd\xED\xA0\x80e\xF4\x90\x80\x80f\x80\xE2\x82 \xD8\xA7";
    let f = dir.write("in.bin", input);
    let stdout = ok(dir
        .cmd("sieve-filter")
        .arg("utf8")
        .arg(&f)
        .arg("--out")
        .arg("out.bin"));
    let v = &json_lines(&stdout)[0];
    assert_eq!(v["bytes"], input.len());
    for (key, want) in [
        ("unexpected_continuation", 1),
        ("missing_continuation", 1),
        ("surrogate", 1),
        ("invalid_4_5_6", 1),
        ("overlong_nul", 1),
        ("overlong_ascii", 1),
        ("overlong_non_ascii", 1),
    ] {
        assert_eq!(v[key], want, "{key} in {v}");
    }
    let cleaned = std::fs::read(dir.join("out.bin")).unwrap();
    assert_eq!(cleaned.len(), input.len());
    assert_eq!(
        cleaned,
        b"a  bA c\xE2\x82\xAC d   e    f    \xD8\xA7".to_vec()
    );
});

sieve_test!(utf8_atire_counts_add_leftover_bytes, |dir| {
    let f = dir.write("in.bin", b"\xC1\x81\xE0\x80\x80");
    let v = &json_lines(&ok(dir
        .cmd("sieve-filter")
        .args(["utf8", "--atire-counts"])
        .arg(&f)))[0];
    assert_eq!(v["overlong_ascii"], 1);
    assert_eq!(v["overlong_nul"], 1);
    assert_eq!(v["unexpected_continuation"], 3);
});

sieve_test!(utf8_reads_stdin_and_one_line_per_file, |dir| {
    let a = dir.write("a", b"ok");
    let b = dir.write("b", b"\xFF");
    let lines = json_lines(&ok(dir.cmd("sieve-filter").arg("utf8").arg(&a).arg(&b)));
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[1]["invalid_4_5_6"], 1);
    let mut child = dir
        .cmd("sieve-filter")
        .args(["utf8", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(b"\xC0\x80").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let v = &json_lines(&String::from_utf8(out.stdout).unwrap())[0];
    assert_eq!(
        (v["file"].as_str(), v["overlong_nul"].as_u64()),
        (Some("-"), Some(1))
    );
});

sieve_test!(utf8_missing_file_is_a_named_error, |dir| {
    let out = fails(dir.cmd("sieve-filter").args(["utf8", "no-such-file"]));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no-such-file"), "{err}");
    let a = dir.write("a", b"x");
    let out = fails(
        dir.cmd("sieve-filter")
            .arg("utf8")
            .arg(&a)
            .arg(&a)
            .args(["--out", "o"]),
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("exactly one"));
});
