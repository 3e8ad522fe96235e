//! First-stage runs read for feedback (`sieve_searcher::feedback::staged::
//! parse_first_stage`): never panics on arbitrary bytes (topics `1` to `3`,
//! a rerank cutoff from the first byte); what it accepts has every topic of
//! the list once, in order, at most the cutoff of hits each, in Anserini's
//! order (score descending, docid ascending), no docid twice in a topic;
//! the hits written back as run lines, reversed, read to the same run and
//! digest.
#![cfg_attr(fuzzing, no_main)]
use std::fmt::Write as _;
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use sieve_searcher::feedback::staged::parse_first_stage;

fuzz_target!(|data: &[u8]| {
    let ids: Vec<String> = ["1", "2", "3"].iter().map(|s| s.to_string()).collect();
    let cutoff = usize::from(data.first().copied().unwrap_or(0) % 8) + 1;
    let Ok(f) = parse_first_stage(Path::new("fuzz"), data, &ids, cutoff) else {
        return;
    };
    assert_eq!(
        f.topics.iter().map(|(t, _)| t.clone()).collect::<Vec<_>>(),
        ids
    );
    let mut lines = Vec::new();
    for (id, hits) in &f.topics {
        assert!(hits.len() <= cutoff);
        for w in hits.windows(2) {
            let order = w[0]
                .score
                .total_cmp(&w[1].score)
                .then_with(|| w[1].docid.as_bytes().cmp(w[0].docid.as_bytes()));
            assert!(order.is_gt(), "{w:?}");
        }
        for (i, h) in hits.iter().enumerate() {
            let mut line = String::new();
            let _ = write!(line, "{id} Q0 {} {} {} t", h.docid, i + 1, h.score);
            lines.push(line);
        }
    }
    lines.reverse();
    let text = lines.join("\n");
    let back =
        parse_first_stage(Path::new("fuzz"), text.as_bytes(), &ids, cutoff).expect("written back");
    assert_eq!(back.digest, f.digest);
    assert_eq!(format!("{back:?}"), format!("{f:?}"));
});

sieve_fuzz::replay_main!();
