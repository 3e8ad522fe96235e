//! Which topics an evaluation covered, said in words: trec_eval's `num_q`
//! counts only the run's topics that have judgements (or, with `complete`,
//! every judged topic), which surprises a reader who just ran 64 topics and
//! sees `num_q 52`.

use super::Evaluation;

impl Evaluation {
    /// A sentence on the topics evaluated, when the run's topics and the
    /// judged topics differ (`None` when they are the same set):
    /// `52 of the run's 64 topics have judgements and are evaluated (num_q
    /// 52); 12 without judgements are left out, as trec_eval does`, plus
    /// the judged topics the run lacks and how they count. `run_topics` is
    /// the number of topics in the run file.
    pub fn coverage(&self, run_topics: usize) -> Option<String> {
        let judged_in_run = self.topics.len();
        let unjudged = run_topics.saturating_sub(judged_in_run);
        let missing = self.missing_topics.len();
        if unjudged == 0 && missing == 0 {
            return None;
        }
        let mut parts = vec![format!(
            "{judged_in_run} of the run's {run_topics} topics have judgements and are evaluated (num_q {})",
            self.num_q()
        )];
        if unjudged > 0 {
            parts.push(format!(
                "{unjudged} without judgements are left out, as trec_eval does"
            ));
        }
        if missing > 0 {
            parts.push(if self.options.complete {
                format!("{missing} judged topics are not in the run and score 0 (trec_eval -c)")
            } else {
                format!(
                    "{missing} judged topics are not in the run and are not counted (trec_eval -c counts them as 0)"
                )
            });
        }
        Some(parts.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use crate::eval::{EvalOptions, evaluate};
    use crate::qrels::parse_qrels;
    use crate::run::{Duplicates, parse_run};

    /// The demo's case in small: the run has topics 1-3, the qrels judge 1,
    /// 2 and 4.
    #[test]
    fn coverage_says_how_many_topics_have_judgements() {
        let qrels = parse_qrels(b"1 0 a 1\n2 0 b 1\n4 0 c 1\n").unwrap();
        let run = parse_run(
            b"1 Q0 a 1 1 t\n2 Q0 b 1 1 t\n3 Q0 c 1 1 t\n",
            Duplicates::Error,
        )
        .unwrap();
        let e = evaluate(&qrels, &run, "t", EvalOptions::default()).unwrap();
        assert_eq!(
            e.coverage(run.num_topics()).unwrap(),
            "2 of the run's 3 topics have judgements and are evaluated (num_q 2); \
             1 without judgements are left out, as trec_eval does; \
             1 judged topics are not in the run and are not counted (trec_eval -c counts them as 0)"
        );
        let same = parse_run(
            b"1 Q0 a 1 1 t\n2 Q0 b 1 1 t\n4 Q0 c 1 1 t\n",
            Duplicates::Error,
        )
        .unwrap();
        let e = evaluate(&qrels, &same, "t", EvalOptions::default()).unwrap();
        assert_eq!(e.coverage(same.num_topics()), None);
    }
}
