//! Evaluating what a user names: qrels refused when they hold no judgment,
//! a run refused when it holds no line, the run named after its tag (else
//! its source), and the sentence on the topics evaluated. `sieve-search
//! eval` / `compare` and the Python package call these.

use std::path::Path;

use super::{EvalOptions, Evaluation, evaluate};
use crate::qrels::{Qrels, QrelsFormat, read_qrels_as};
use crate::run::{Duplicates, Run, read_run};
use crate::{Error, Result};

/// The qrels at `path`, refused with [`Error::EmptyQrels`] when there is
/// no judgment in them.
pub fn read_judgements(path: &Path) -> Result<Qrels> {
    read_judgements_as(path, QrelsFormat::Detect)
}

/// [`read_judgements`] of a qrels file of `format`.
pub fn read_judgements_as(path: &Path, format: QrelsFormat) -> Result<Qrels> {
    let qrels = read_qrels_as(path, format)?;
    check_judgements(qrels, path)
}

/// `qrels` (read from `source`), refused with [`Error::EmptyQrels`] when
/// there is no judgment in them.
pub fn check_judgements(qrels: Qrels, source: &Path) -> Result<Qrels> {
    if qrels.num_judgments() == 0 {
        return Err(Error::EmptyQrels {
            path: source.to_path_buf(),
        });
    }
    Ok(qrels)
}

/// Evaluates `run`, read from `source`: refused with [`Error::EmptyRun`]
/// when it has no line; named after its tag, else `source`; an evaluation
/// error is wrapped in [`Error::Evaluating`] naming `source`. Returns the
/// evaluation and what [`Evaluation::coverage`] says of it.
pub fn evaluate_run(
    qrels: &Qrels,
    run: &Run,
    source: &Path,
    opts: EvalOptions,
) -> Result<(Evaluation, Option<String>)> {
    if run.num_topics() == 0 {
        return Err(Error::EmptyRun {
            path: source.to_path_buf(),
        });
    }
    let name = run
        .tag
        .clone()
        .unwrap_or_else(|| source.display().to_string());
    let e = evaluate(qrels, run, &name, opts).map_err(|inner| Error::Evaluating {
        path: source.to_path_buf(),
        inner: Box::new(inner),
    })?;
    let note = e.coverage(run.num_topics());
    Ok((e, note))
}

/// Reads the run file `path` (`dups`: what a document retrieved twice for
/// a topic does) and evaluates it with [`evaluate_run`].
pub fn evaluate_run_file(
    qrels: &Qrels,
    path: &Path,
    dups: Duplicates,
    opts: EvalOptions,
) -> Result<(Evaluation, Option<String>)> {
    let run = read_run(path, dups)?;
    evaluate_run(qrels, &run, path, opts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qrels::parse_qrels;
    use crate::run::parse_run;

    #[test]
    fn empty_qrels_and_runs_are_refused_naming_the_source() {
        let e = check_judgements(Qrels::default(), Path::new("q.txt")).unwrap_err();
        assert!(matches!(e, Error::EmptyQrels { .. }), "{e:?}");
        assert!(
            e.to_string().starts_with("q.txt: the qrels file is empty"),
            "{e}"
        );
        let qrels = parse_qrels(b"1 0 a 1\n").unwrap();
        let run = parse_run(b"", Duplicates::Error).unwrap();
        let e = evaluate_run(&qrels, &run, Path::new("r.run"), EvalOptions::default());
        let e = e.unwrap_err();
        assert!(
            e.to_string().starts_with("r.run: the run file is empty"),
            "{e}"
        );
    }

    #[test]
    fn a_run_without_judged_topics_names_the_run_being_evaluated() {
        let qrels = parse_qrels(b"1 0 a 1\n").unwrap();
        let run = parse_run(b"2 Q0 a 1 1.5 t\n", Duplicates::Error).unwrap();
        let e = evaluate_run(&qrels, &run, Path::new("r.run"), EvalOptions::default());
        let e = e.unwrap_err();
        assert!(matches!(e, Error::Evaluating { .. }), "{e:?}");
        let cause = std::error::Error::source(&e).map(|c| c.to_string());
        let chain = format!("{e}: {}", cause.unwrap_or_default());
        assert_eq!(
            chain,
            "evaluating r.run: no topic of run \"t\" is in the qrels"
        );
    }

    #[test]
    fn a_run_is_named_after_its_tag_else_its_source() {
        let qrels = parse_qrels(b"1 0 a 1\n").unwrap();
        let run = parse_run(b"1 Q0 a 1 1.5 mytag\n", Duplicates::Error).unwrap();
        let (e, note) =
            evaluate_run(&qrels, &run, Path::new("r.run"), EvalOptions::default()).unwrap();
        assert_eq!(e.run, "mytag");
        assert_eq!(note, None);
    }
}
