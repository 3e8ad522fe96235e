//! Sample-qrels reader (`sample_eval.pl`'s `qid iter docno stratum rel`):
//! `parse_qrels_as(.., QrelsFormat::Sample)` never panics on arbitrary bytes;
//! accepted qrels written back with `Qrels::write` parse to an equal value
//! (strata included), and evaluating a run against them (`xinfAP` over the
//! strata, every other measure) neither panics nor gives a NaN.
#![cfg_attr(fuzzing, no_main)]
use libfuzzer_sys::fuzz_target;
use sieve_searcher::eval::{EvalOptions, Measure, evaluate};
use sieve_searcher::qrels::{QrelsFormat, parse_qrels_as};
use sieve_searcher::run::Duplicates;

fuzz_target!(|data: &[u8]| {
    let Ok(q) = parse_qrels_as(data, QrelsFormat::Sample) else {
        return;
    };
    let mut out = Vec::new();
    q.write(&mut out).expect("write to Vec");
    let back = parse_qrels_as(&out, QrelsFormat::Sample).expect("re-parse written qrels");
    assert_eq!(back, q);
    // a run retrieving every judged document, scores in reverse byte order
    let mut lines = String::new();
    for qid in q.topic_ids() {
        for (i, (docno, _)) in q
            .topic(qid)
            .expect("topic")
            .sorted()
            .into_iter()
            .enumerate()
        {
            lines.push_str(&format!("{qid} Q0 {docno} {i} {} t\n", i % 7));
        }
        lines.push_str(&format!("{qid} Q0 unjudged.doc 0 3 t\n"));
    }
    let Ok(run) = sieve_searcher::run::parse_run(lines.as_bytes(), Duplicates::KeepBest) else {
        return;
    };
    for judged_only in [false, true] {
        let o = EvalOptions {
            judged_only,
            ..EvalOptions::default()
        };
        if let Ok(e) = evaluate(&q, &run, "t", o) {
            for m in [
                Measure::XinfAP,
                Measure::InfAP,
                Measure::Judged(10),
                Measure::Map,
            ] {
                assert!(!e.mean(m).is_nan(), "{m}");
            }
        }
    }
});

sieve_fuzz::replay_main!();
