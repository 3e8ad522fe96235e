//! Block-max bounds files (`IDX/bounds/<segment>.bmx`) end to end: written
//! by the build, a missing one falls back to scoring without bounds with a
//! warning (same run), a damaged or foreign one is refused with a clear
//! error, and `sieve-index bounds` rebuilds them.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::pipeline::{TOPICS, build};
use crate::util::{Dir, ok};

/// The bounds files of `index`, sorted.
fn bmx_files(index: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(index.join("bounds"))
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|e| e == "bmx"));
    v.sort();
    v
}

/// `sieve-search run` over `index`, top 20 of the pipeline topics.
fn search(dir: &Dir, index: &Path) -> Output {
    let topics = dir.write("topics.txt", TOPICS.as_bytes());
    dir.cmd("sieve-search")
        .arg("run")
        .arg("--index")
        .arg(index)
        .arg("--topics")
        .arg(topics)
        .args(["--hits", "20"])
        .output()
        .expect("spawn")
}

fn rebuild(dir: &Dir, index: &Path) -> String {
    ok(dir
        .cmd("sieve-index")
        .arg("bounds")
        .arg("--index")
        .arg(index))
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

sieve_test!(
    missing_bounds_fall_back_with_a_warning_and_the_command_rebuilds_them,
    |dir| {
        let index = build(&dir, "idx", &[]);
        let files = bmx_files(&index);
        assert!(!files.is_empty(), "the build wrote no bounds file");
        let with = search(&dir, &index);
        assert!(with.status.success(), "{}", stderr(&with));
        assert!(
            !stderr(&with).contains("without block-max bounds"),
            "{}",
            stderr(&with)
        );
        assert!(!with.stdout.is_empty());

        std::fs::remove_dir_all(index.join("bounds")).unwrap();
        let without = search(&dir, &index);
        assert!(without.status.success(), "{}", stderr(&without));
        assert!(
            stderr(&without).contains("without block-max bounds"),
            "{}",
            stderr(&without)
        );
        assert_eq!(
            without.stdout, with.stdout,
            "scoring without bounds changed the run"
        );

        let out = rebuild(&dir, &index);
        assert!(
            out.contains(&format!("{} file(s) written", files.len())),
            "{out}"
        );
        assert_eq!(bmx_files(&index), files);
        let again = search(&dir, &index);
        assert!(!stderr(&again).contains("without block-max bounds"));
        assert_eq!(again.stdout, with.stdout);
        // Valid files are kept as they are.
        assert!(rebuild(&dir, &index).contains("0 file(s) written"));
    }
);

sieve_test!(flipped_byte_in_bounds_is_refused_then_rebuilt, |dir| {
    let index = build(&dir, "idx", &[]);
    let before = search(&dir, &index);
    let file = bmx_files(&index).remove(0);
    let mut bytes = std::fs::read(&file).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x40;
    std::fs::write(&file, &bytes).unwrap();
    let out = search(&dir, &index);
    assert!(!out.status.success(), "a damaged bounds file was accepted");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&file.display().to_string()), "{err}");
    assert!(err.contains("CRC-32"), "{err}");
    assert!(rebuild(&dir, &index).contains("1 file(s) written"));
    let after = search(&dir, &index);
    assert!(after.status.success(), "{}", stderr(&after));
    assert_eq!(after.stdout, before.stdout);
});

sieve_test!(bounds_of_another_segment_are_refused_as_stale, |dir| {
    let a = build(&dir, "a", &[]);
    let b = build(&dir, "b", &[]);
    let target = bmx_files(&a).remove(0);
    std::fs::copy(bmx_files(&b).remove(0), &target).unwrap();
    let out = search(&dir, &a);
    assert!(!out.status.success(), "a foreign bounds file was accepted");
    let err = stderr(&out);
    assert!(err.contains(&target.display().to_string()), "{err}");
    assert!(err.contains("segment id: expected"), "{err}");
    // The stale file is replaced by the command.
    assert!(rebuild(&dir, &a).contains("1 file(s) written"));
    assert!(search(&dir, &a).status.success());
});
