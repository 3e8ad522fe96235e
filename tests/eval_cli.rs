//! `sieve-search eval`: trec_eval's own invocation (`[-q] [-c] [-M N]
//! [-m MEASURE]... QRELS RUN`) next to the `--qrels QRELS RUN...` form, and
//! input gdeval refuses.

use crate::util::{fails, ok};

const QRELS: &[u8] = b"1 0 10 1\n1 0 9 0\n1 0 100 1\n1 0 2 1\n2 0 A 1\n2 0 B 0\n2 0 C 2\n3 0 x 1\n";
const RUN: &[u8] = b"1 Q0 10 1 0.10000000149 t\n1 Q0 9 2 0.1 t\n1 Q0 2 3 1.0000001 t\n\
    1 Q0 100 4 1.0000002 t\n3 Q0 x 1 1 t\n";

fn row(measure: &str, qid: &str, value: &str) -> String {
    format!("{measure:<22}\t{qid}\t{value}\n")
}

sieve_test!(eval_trec_eval_invocation, |dir| {
    let (q, r) = (dir.write("qrels", QRELS), dir.write("run", RUN));
    let out = ok(dir
        .cmd("sieve-search")
        .args([
            "eval", "-q", "-c", "-m", "map", "-m", "num_rel", "-m", "P.5,10",
        ])
        .arg(&q)
        .arg(&r));
    // trec_eval 9.0.8 -q -c -m map -m num_rel -m P.5,10 prints these rows
    // (topic 1 ties 9 and 10 at f32; topic 2 is missing from the run)
    for want in [
        row("num_rel", "1", "3"),
        row("map", "1", "0.9167"),
        row("P_5", "1", "0.6000"),
        row("num_q", "all", "3"),
        row("num_rel", "all", "6"),
        row("map", "all", "0.6389"),
        row("P_10", "all", "0.1333"),
    ] {
        assert!(out.contains(&want), "{want:?} not in\n{out}");
    }
    assert!(!out.contains("\t2\t") && !out.contains("ndcg"), "{out}");
    // -M 1: only the first document (100, relevant) of topic 1 counts
    let out = ok(dir
        .cmd("sieve-search")
        .args(["eval", "-M", "1", "-m", "num_ret", "-m", "recip_rank"])
        .arg(&q)
        .arg(&r));
    assert!(out.contains(&row("num_ret", "all", "2")), "{out}");
    assert!(out.contains(&row("recip_rank", "all", "1.0000")), "{out}");
    // today's form still prints the default measures
    let out = ok(dir
        .cmd("sieve-search")
        .args(["eval", "--qrels"])
        .arg(&q)
        .arg(&r));
    for m in ["num_ret", "map", "P_30", "recall_1000", "ndcg@20", "err@20"] {
        assert!(
            out.contains(&format!("{m:<22}\tall\t")),
            "{m} not in\n{out}"
        );
    }
    let e = fails(
        dir.cmd("sieve-search")
            .args(["eval", "-m", "gm_map"])
            .arg(&q)
            .arg(&r),
    );
    let msg = String::from_utf8_lossy(&e.stderr);
    assert!(msg.contains("gm_map"), "{msg}");
    let e = fails(dir.cmd("sieve-search").args(["eval"]).arg(&q));
    assert!(String::from_utf8_lossy(&e.stderr).contains("QRELS RUN"));
});

sieve_test!(eval_grade_above_4_flags_gdeval_only, |dir| {
    let q = dir.write("qrels", b"1 0 a 7\n1 0 b 1\n");
    let r = dir.write("run", b"1 Q0 b 1 2 t\n1 Q0 a 2 1 t\n");
    let out = dir
        .cmd("sieve-search")
        .args(["eval", "-m", "map", "-m", "gdeval"])
        .arg(&q)
        .arg(&r)
        .output()
        .unwrap();
    assert!(out.status.success());
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(stdout.contains(&row("map", "all", "1.0000")), "{stdout}");
    assert!(!stdout.contains("ndcg@20"), "{stdout}");
    assert!(
        stderr.contains("grade 7") && stderr.contains("gdeval"),
        "{stderr}"
    );
});

sieve_test!(eval_judged_only_prints_what_the_library_computes, |dir| {
    use sieve_searcher::eval::{EvalOptions, MeasureSpec, evaluate};
    use sieve_searcher::qrels::read_qrels;
    use sieve_searcher::run::{Duplicates, read_run};
    let (q, r) = (
        crate::util::fixture("eval/qrels.cacm.txt"),
        crate::util::fixture("eval/anserini__cacm-bm25.run.txt"),
    );
    let args = ["-m", "all_trec", "-m", "gdeval", "-m", "judged"];
    let out = ok(dir
        .cmd("sieve-search")
        .args(["eval", "-q", "-J", "-M", "20"])
        .args(args)
        .arg(&q)
        .arg(&r));
    let opts = EvalOptions {
        judged_only: true,
        max_docs: Some(20),
        ..EvalOptions::default()
    };
    let measures =
        MeasureSpec::parse_all(&args[1..].iter().step_by(2).collect::<Vec<_>>()).unwrap();
    let run = read_run(&r, Duplicates::Error).unwrap();
    let e = evaluate(&read_qrels(&q).unwrap(), &run, "Anserini", opts).unwrap();
    assert_eq!(out, e.to_text_of(&measures, true, 4));
    // -J removes unjudged documents: what is left is judged (a topic left
    // with nothing has a judged share of 0)
    use sieve_searcher::eval::Measure;
    let emptied = e
        .topics
        .iter()
        .filter(|t| t.get(Measure::NumRet) == Some(0.0))
        .count();
    assert!(emptied < e.topics.len());
    for t in &e.topics {
        let want = if t.get(Measure::NumRet) == Some(0.0) {
            0.0
        } else {
            1.0
        };
        assert_eq!(t.get(Measure::Judged(10)), Some(want), "topic {}", t.qid);
    }
    let plain = ok(dir
        .cmd("sieve-search")
        .args(["eval", "-M", "20", "-m", "num_ret"])
        .arg(&q)
        .arg(&r));
    assert!(plain.contains(&row("num_ret", "all", "1040")), "{plain}");
    assert!(!out.contains(&row("num_ret", "all", "1040")), "{out}");
    // compare -J compares the judged-only evaluations
    let json = ok(dir
        .cmd("sieve-search")
        .args(["compare", "-J", "--json", "-m", "P_10", "--qrels"])
        .arg(&q)
        .arg(&r)
        .arg(&r));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let full = evaluate(
        &read_qrels(&q).unwrap(),
        &run,
        "Anserini",
        EvalOptions {
            judged_only: true,
            ..EvalOptions::default()
        },
    )
    .unwrap();
    let p10 = full.mean(sieve_searcher::eval::Measure::P10);
    assert_eq!(v["measures"][0]["mean_a"].as_f64(), Some(p10), "{json}");
    assert_eq!(v["measures"][0]["mean_b"].as_f64(), Some(p10), "{json}");
});

sieve_test!(eval_sample_qrels_give_sample_eval_xinfap, |dir| {
    let (q, r) = (
        crate::util::fixture("eval/sample/qrels.sample.txt"),
        crate::util::fixture("eval/sample/madeup.run"),
    );
    let out = ok(dir
        .cmd("sieve-search")
        .args([
            "eval",
            "--qrels-format",
            "sample",
            "-m",
            "xinfAP",
            "-m",
            "map",
        ])
        .arg(&q)
        .arg(&r));
    // sample_eval.pl -q prints `infAP  all  0.0871` for these files
    assert!(out.contains(&row("xinfAP", "all", "0.0871")), "{out}");
    assert!(out.contains(&format!("{:<22}\tall\t", "map")), "{out}");
    // five columns are never guessed: refused, naming the flag
    let e = fails(
        dir.cmd("sieve-search")
            .args(["eval", "-m", "map"])
            .arg(&q)
            .arg(&r),
    );
    let msg = String::from_utf8_lossy(&e.stderr);
    assert!(
        msg.contains("line 1") && msg.contains("--qrels-format sample"),
        "{msg}"
    );
    // a four-column line in sample qrels: refused with its line
    let mixed = dir.write("mixed", b"1 0 a s1 1\n1 0 b 0\n");
    let e = fails(
        dir.cmd("sieve-search")
            .args(["eval", "--qrels-format", "sample"])
            .arg(&mixed)
            .arg(&r),
    );
    let msg = String::from_utf8_lossy(&e.stderr);
    assert!(msg.contains("line 2") && msg.contains("stratum"), "{msg}");
});
