//! Topic reader: `parse_topics` never panics on arbitrary bytes, and whatever
//! it accepts satisfies its documented invariants (non-empty ids without any
//! whitespace, non-empty titles; unique ids; `query` never panics for any field).
#![cfg_attr(fuzzing, no_main)]
use libfuzzer_sys::fuzz_target;
use sieve_searcher::topics::{TopicField, parse_topics};

fuzz_target!(|data: &[u8]| {
    if let Ok((_, topics)) = parse_topics(data) {
        let mut ids = std::collections::HashSet::new();
        for t in &topics {
            assert!(
                !t.id.is_empty() && !t.id.contains(char::is_whitespace),
                "id {:?}",
                t.id
            );
            assert!(!t.title.is_empty(), "empty title for {:?}", t.id);
            assert!(ids.insert(t.id.clone()), "duplicate id {:?}", t.id);
            for f in [
                TopicField::Title,
                TopicField::Description,
                TopicField::TitleDescription,
            ] {
                let _ = t.query(f);
            }
        }
    }
});

sieve_fuzz::replay_main!();
