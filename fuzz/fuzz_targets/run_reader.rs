//! Run reader: `parse_run` never panics on arbitrary bytes (both duplicate
//! policies); `ranked` (gdeval's order) and `trec_eval_ranked` are
//! permutations of each topic's hits, `ranked` in score-then-docno order
//! when no score is NaN; the hits written back as run lines parse to the
//! same run (NaN included); and evaluating the run against qrels made from
//! its own hits never panics.
#![cfg_attr(fuzzing, no_main)]
use std::fmt::Write as _;

use libfuzzer_sys::fuzz_target;
use sieve_searcher::eval::{EvalOptions, evaluate};
use sieve_searcher::qrels::Qrels;
use sieve_searcher::run::{Duplicates, parse_run};

fuzz_target!(|data: &[u8]| {
    let _ = parse_run(data, Duplicates::Error);
    let Ok(run) = parse_run(data, Duplicates::KeepBest) else {
        return;
    };
    let tag = run.tag.clone().unwrap_or_default();
    let mut text = String::new();
    let mut qrels = Qrels::default();
    for qid in run.topic_ids() {
        let hits = run.hits(qid).unwrap();
        let ranked = run.ranked(qid);
        assert_eq!(ranked.len(), hits.len());
        assert_eq!(run.trec_eval_ranked(qid).len(), hits.len());
        for w in ranked.windows(2).filter(|w| !w[1].score.is_nan()) {
            assert!(
                w[0].score > w[1].score || (w[0].score == w[1].score && w[0].docno > w[1].docno)
            );
        }
        for (i, h) in hits.iter().enumerate() {
            let _ = writeln!(text, "{qid} Q0 {} {} {:?} {tag}", h.docno, i + 1, h.score);
            qrels.insert(qid, &h.docno, (i % 6) as i64 - 1);
        }
    }
    let back = parse_run(text.as_bytes(), Duplicates::Error).expect("re-parse written run");
    // Debug text, as NaN != NaN
    assert_eq!(format!("{back:?}"), format!("{run:?}"));
    if run.num_topics() > 0 {
        let e = evaluate(&qrels, &run, "fuzz", EvalOptions::default()).expect("evaluate");
        for t in &e.topics {
            for m in sieve_searcher::eval::Measure::ALL {
                if let Some(v) = t.get(m) {
                    assert!(v.is_finite() && v >= 0.0, "{m} = {v}");
                }
            }
        }
    }
});

sieve_fuzz::replay_main!();
