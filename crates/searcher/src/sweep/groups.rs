//! A sweep's topics searched group by group, and what each group's hits
//! become: per setting, the group's run written to its run file (atomic:
//! [`OutFile`]), evaluated and added to the setting's evaluation, and its
//! first docids per topic kept for the HTML page; an unfiltered setting's
//! relevant documents and their ranks are kept for the judged loss of its
//! filters ([`crate::judged`]).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use rayon::prelude::*;
use sieve_format::outfile::OutFile;

use super::{RunFiles, Search, Setting, TOP_DOCS};
use crate::bm25::{BagOfWords, Hit};
use crate::eval::{
    EvalOptions, Evaluation, evaluate, evaluate_with_judged_only, nothing_retrieved,
};
use crate::judged::{RelevantRanks, relevant_ranks};
use crate::qrels::Qrels;
use crate::run::{Run, RunWriter};
use crate::{Error, Result};

/// Per topic of a group, per setting, the hits.
type TopicsHits = Vec<Vec<Vec<Hit>>>;

/// Per topic id, the first [`TOP_DOCS`] docids of a setting.
pub(super) type TopDocs = BTreeMap<String, Vec<String>>;

/// A group's evaluation of one setting, and with `-J` its judged-only
/// evaluation (`None`: no judged topic in the group).
type Evaluated = Option<(Evaluation, Option<Evaluation>)>;

/// Topics and their analysed queries, in topic-file order.
type Queries = [(String, BagOfWords)];

/// Searches `queries` in groups of topics (in parallel within a group),
/// each group's hits given to `absorber` while the next group is searched
/// (the evaluation is serial, and would otherwise leave the pool idle);
/// `progress` is called with the number of topics absorbed.
pub(super) fn search_in_groups(
    queries: &Queries,
    search: &Search<'_>,
    absorber: &mut Absorber<'_>,
    progress: &mut dyn FnMut(usize),
) -> Result<()> {
    let group = (rayon::current_num_threads() * 4).max(16);
    let mut done = 0;
    let mut previous: Option<(&Queries, TopicsHits)> = None;
    for chunk in queries.chunks(group) {
        let (results, absorbed) = rayon::join(
            || {
                chunk
                    .par_iter()
                    .map(|(_, q)| search.search(q))
                    .collect::<Result<Vec<_>>>()
            },
            || match previous.take() {
                Some((c, r)) => absorber.absorb(c, r).map(|()| c.len()),
                None => Ok(0),
            },
        );
        done += absorbed?;
        if done > 0 {
            progress(done);
        }
        previous = Some((chunk, results?));
    }
    if let Some((c, r)) = previous.take() {
        absorber.absorb(c, r)?;
        done += c.len();
        progress(done);
    }
    Ok(())
}

/// What a sweep keeps of the groups of topics searched: per setting, its
/// evaluation so far and its first docids per topic, and the run files
/// being written.
pub(super) struct Absorber<'p> {
    settings: &'p [Setting],
    /// The judgements evaluated against ([`judged_topics`]).
    qrels: &'p Qrels,
    writers: RunFileSet,
    evals: Vec<Option<Evaluation>>,
    /// With `--judged-only`: the evaluations with trec_eval `-J`.
    judged_evals: Option<Vec<Option<Evaluation>>>,
    top_docs: Vec<TopDocs>,
    /// Per setting, for a baseline, its relevant documents and their ranks.
    relevant: Vec<RelevantRanks>,
}

/// What [`Absorber::finish`] gives: per setting, the evaluation, the
/// evaluation with trec_eval `-J` (when asked for), the first docids, for
/// a baseline its relevant documents and their ranks (empty for a
/// filtered setting); and the run files.
pub(super) struct Absorbed {
    pub(super) evals: Vec<Evaluation>,
    pub(super) judged_evals: Option<Vec<Evaluation>>,
    pub(super) top_docs: Vec<TopDocs>,
    pub(super) run_files: Vec<PathBuf>,
    pub(super) relevant: Vec<RelevantRanks>,
}

/// A sweep evaluates every topic of the qrels (trec_eval `-c`), at every
/// rank.
const EVAL_OPTIONS: EvalOptions = EvalOptions {
    complete: true,
    max_docs: None,
    judged_only: false,
};

impl<'p> Absorber<'p> {
    /// Nothing absorbed yet, run files in `writers`; `judged_only`: each
    /// setting is also evaluated with trec_eval `-J`.
    pub(super) fn new(
        settings: &'p [Setting],
        qrels: &'p Qrels,
        writers: RunFileSet,
        judged_only: bool,
    ) -> Absorber<'p> {
        let n = settings.len();
        Absorber {
            settings,
            qrels,
            writers,
            evals: vec![None; n],
            judged_evals: judged_only.then(|| vec![None; n]),
            top_docs: vec![BTreeMap::new(); n],
            relevant: vec![BTreeMap::new(); n],
        }
    }

    /// Takes one group's hits (`results`, per topic of `chunk`, per
    /// setting): for each setting, the group's run written, then every
    /// setting's run evaluated (settings in parallel) and added to its
    /// evaluation.
    fn absorb(&mut self, chunk: &Queries, mut results: TopicsHits) -> Result<()> {
        let mut parts = Vec::with_capacity(self.settings.len());
        for s in 0..self.settings.len() {
            let ranked = self.ranked(s, chunk, &mut results);
            parts.push(self.write_part(s, ranked)?);
        }
        let this = &*self;
        let evaluated: Vec<Result<Evaluated>> = parts
            .par_iter()
            .enumerate()
            .map(|(s, part)| this.evaluate_part(s, part.as_ref()))
            .collect();
        for (s, e) in evaluated.into_iter().enumerate() {
            if let Some((e, j)) = e? {
                absorb_into(&mut self.evals[s], e);
                if let (Some(judged), Some(j)) = (&mut self.judged_evals, j) {
                    absorb_into(&mut judged[s], j);
                }
            }
        }
        Ok(())
    }

    /// Setting `s`'s hits of the group, taken from `results`, as ranked
    /// `(docid, score)` lists per topic; the first [`TOP_DOCS`] docids of
    /// each topic with hits are kept, and for a baseline the ranks of its
    /// relevant documents.
    fn ranked(
        &mut self,
        s: usize,
        chunk: &Queries,
        results: &mut TopicsHits,
    ) -> Vec<(String, Vec<(String, f32)>)> {
        let mut ranked: Vec<(String, Vec<(String, f32)>)> = Vec::with_capacity(chunk.len());
        for ((qid, _), per_variant) in chunk.iter().zip(results.iter_mut()) {
            let hits = std::mem::take(&mut per_variant[s]);
            if self.settings[s].is_baseline() {
                let ranks = relevant_ranks(self.qrels, qid, hits.iter().map(|h| h.docid.as_str()));
                if !ranks.is_empty() {
                    self.relevant[s].insert(qid.clone(), ranks);
                }
            }
            if !hits.is_empty() {
                self.top_docs[s].insert(
                    qid.clone(),
                    hits.iter()
                        .take(TOP_DOCS)
                        .map(|h| h.docid.clone())
                        .collect(),
                );
            }
            ranked.push((
                qid.clone(),
                hits.into_iter().map(|h| (h.docid, h.score)).collect(),
            ));
        }
        ranked
    }

    /// Setting `s`'s run of one group: checked, written to its run file
    /// (when there are run files), and read as `eval` reads the run file
    /// (`None` when it has no topic).
    fn write_part(
        &mut self,
        s: usize,
        ranked: Vec<(String, Vec<(String, f32)>)>,
    ) -> Result<Option<Run>> {
        let setting = &self.settings[s];
        crate::run::check_shared_docids(
            ranked
                .iter()
                .map(|(qid, hits)| (qid.as_str(), hits.iter().map(|(d, _)| d.as_str()).collect())),
        )?;
        if self.writers.active() {
            let mut w = RunWriter::new(Vec::new(), &setting.tag)?;
            for (qid, hits) in &ranked {
                w.write_topic(qid, hits)?;
            }
            self.writers.write(s, &w.finish()?)?;
        }
        // Evaluated as `eval` reads the run file, without the text.
        let part = Run::from_ranked(&setting.tag, ranked)?;
        Ok((part.num_topics() > 0).then_some(part))
    }

    /// Setting `s`'s run of one group evaluated (and with `-J`, each topic
    /// ranked once for both evaluations); `None` when the group has no
    /// judged topic.
    fn evaluate_part(&self, s: usize, part: Option<&Run>) -> Result<Evaluated> {
        let Some(part) = part else {
            return Ok(None);
        };
        let (tag, qrels) = (&self.settings[s].tag, self.qrels);
        let evaluated = match &self.judged_evals {
            None => evaluate(qrels, part, tag, EVAL_OPTIONS).map(|e| (e, None)),
            Some(_) => {
                evaluate_with_judged_only(qrels, part, tag, EVAL_OPTIONS).map(|(e, j)| (e, Some(j)))
            }
        };
        match evaluated {
            Ok(x) => Ok(Some(x)),
            Err(Error::NoCommonTopics { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The evaluations (a setting that retrieved nothing for any judged
    /// topic scores 0), the first docids, the run files committed and the
    /// baselines' relevant ranks.
    pub(super) fn finish(self) -> Result<Absorbed> {
        let run_files = self.writers.finish()?;
        let (qrels, settings) = (self.qrels, self.settings);
        let complete = |evals: Vec<Option<Evaluation>>, options: EvalOptions| {
            evals
                .into_iter()
                .zip(settings)
                .map(|(e, s)| e.unwrap_or_else(|| nothing_retrieved(qrels, &s.tag, options)))
                .collect::<Vec<Evaluation>>()
        };
        let judged_options = EvalOptions {
            judged_only: true,
            ..EVAL_OPTIONS
        };
        Ok(Absorbed {
            evals: complete(self.evals, EVAL_OPTIONS),
            judged_evals: self.judged_evals.map(|j| complete(j, judged_options)),
            top_docs: self.top_docs,
            run_files,
            relevant: self.relevant,
        })
    }
}

/// `part` added to the evaluation in `slot` (or put there).
fn absorb_into(slot: &mut Option<Evaluation>, part: Evaluation) {
    match slot {
        Some(all) => all.absorb(part),
        None => *slot = Some(part),
    }
}

/// The run files of a sweep, each written under a unique temporary name
/// beside it ([`OutFile`]: two sweeps into one directory never share one);
/// dropped after an error, every temporary file goes and the previous run
/// files stay as they were.
pub(super) struct RunFileSet {
    files: Vec<OutFile>,
}

impl RunFileSet {
    pub(super) fn create(files: &RunFiles, settings: &[Setting]) -> Result<RunFileSet> {
        let Some(dir) = &files.dir else {
            return Ok(RunFileSet { files: Vec::new() });
        };
        std::fs::create_dir_all(dir).map_err(|source| Error::Io {
            path: dir.clone(),
            source,
        })?;
        let mut out = Vec::with_capacity(settings.len());
        for s in settings {
            out.push(OutFile::create(&crate::batch::run_path(dir, &s.tag))?);
        }
        Ok(RunFileSet { files: out })
    }

    fn active(&self) -> bool {
        !self.files.is_empty()
    }

    fn write(&mut self, setting: usize, bytes: &[u8]) -> Result<()> {
        if let Some(w) = self.files.get_mut(setting) {
            w.write_all(bytes).map_err(|source| Error::Io {
                path: w.temp_path().to_path_buf(),
                source,
            })?;
        }
        Ok(())
    }

    /// Commits every file (synced, renamed into place), in setting order.
    fn finish(self) -> Result<Vec<PathBuf>> {
        let mut done = Vec::with_capacity(self.files.len());
        for f in self.files {
            let path = f.target().to_path_buf();
            f.commit()?;
            done.push(path);
        }
        Ok(done)
    }
}
