//! TREC run files: `qid Q0 docno rank score tag`, one retrieved document per
//! line.
//!
//! # Reading
//!
//! [`parse_run`] splits each line on ASCII whitespace into exactly six fields;
//! blank lines are skipped. The second field (`Q0`) and the rank are ignored,
//! as trec_eval ignores them: the evaluation order is recomputed from the
//! scores by [`Run::trec_eval_ranked`] (trec_eval) and [`Run::ranked`]
//! (gdeval). The score is parsed as an `f64` (trec_eval's `atof`, which also
//! reads `nan` and `inf`: so do we; [`Run::first_nan`] names the first NaN
//! read). Topic and document ids are kept exactly as written.
//! A document retrieved twice for the same topic is an error
//! ([`Error::DuplicateDoc`], trec_eval refuses such runs) unless
//! [`Duplicates::KeepBest`] is given.
//!
//! # Writing
//!
//! [`RunWriter`] / [`write_run`] write `qid Q0 docid rank score tag` lines with
//! ranks from 1, in the order given, which must already be trec_eval's order
//! (use [`rank_hits`]). Scores are `f32` printed with Rust's shortest
//! round-trip formatting (`{}`), so distinct `f32` scores stay distinct and in
//! the same order when read back as `f64`: the writer never invents a tie.

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::Path;

use crate::text::{snippet, utf8};
use crate::{Error, Result};

/// One retrieved document of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunHit {
    /// The document id, exactly as written.
    pub docno: String,
    /// The score (the fifth column, parsed as `f64`).
    pub score: f64,
}

/// What [`parse_run`] does with a document retrieved twice for one topic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Duplicates {
    /// Refuse the run with [`Error::DuplicateDoc`] (trec_eval's behaviour).
    #[default]
    Error,
    /// Keep the copy with the highest score (the first one on equal scores).
    KeepBest,
}

/// A parsed run: hits by topic id, in file order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Run {
    /// The tag (sixth column) of the first line, if any line was read.
    pub tag: Option<String>,
    /// The first hit read with a NaN score, as (qid, docno), if any.
    pub first_nan: Option<(String, String)>,
    topics: BTreeMap<String, Vec<RunHit>>,
}

impl Run {
    /// Topic ids with at least one hit, in byte order.
    pub fn topic_ids(&self) -> impl Iterator<Item = &str> {
        self.topics.keys().map(String::as_str)
    }

    /// The hits of topic `qid` in file order, if the run has that topic.
    pub fn hits(&self, qid: &str) -> Option<&[RunHit]> {
        self.topics.get(qid).map(Vec::as_slice)
    }

    /// The hits of topic `qid` in gdeval's order: score descending compared
    /// as `f64` (Perl numbers), ties broken by docno descending (byte-wise);
    /// NaN scores, which gdeval's sort cannot place consistently, come last.
    /// Empty if the run does not have the topic.
    pub fn ranked(&self, qid: &str) -> Vec<&RunHit> {
        let mut v: Vec<&RunHit> = self
            .topics
            .get(qid)
            .map(|h| h.iter().collect())
            .unwrap_or_default();
        v.sort_by(|a, b| {
            let by_score = match (a.score.is_nan(), b.score.is_nan()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                (false, false) => b.score.partial_cmp(&a.score).unwrap_or(Ordering::Equal),
            };
            by_score.then_with(|| b.docno.as_bytes().cmp(a.docno.as_bytes()))
        });
        v
    }

    /// The hits of topic `qid` in trec_eval 9's evaluation order, exactly:
    /// trec_eval keeps each score as a C `float` (`f32`, rounded from the
    /// `f64` read), so scores equal as `f32` tie; `qsort` with
    /// `comp_sim_docno` then orders by score descending, ties by docno
    /// descending (`strcmp`). A NaN score compares neither greater nor less
    /// than anything, so it "ties" with every score and its place depends on
    /// the sort algorithm and its input order: trec_eval first sorts the
    /// run's lines by topic and docno ascending (`get_trec_results.c`), then
    /// each topic's hits with glibc's `qsort` (a top-down merge sort,
    /// [`glibc_msort`]); so do we. (pytrec_eval hands trec_eval its hits in
    /// another order, so it may place NaN scores differently.) Empty if the
    /// run does not have the topic.
    pub fn trec_eval_ranked(&self, qid: &str) -> Vec<&RunHit> {
        let mut v: Vec<&RunHit> = self
            .topics
            .get(qid)
            .map(|h| h.iter().collect())
            .unwrap_or_default();
        let cmp = |a: &&RunHit, b: &&RunHit| {
            let (sa, sb) = (a.score as f32, b.score as f32);
            if sa > sb {
                Ordering::Less
            } else if sa < sb {
                Ordering::Greater
            } else {
                b.docno.as_bytes().cmp(a.docno.as_bytes())
            }
        };
        // Without NaN the comparison is a total order (a topic's docnos are
        // unique), so every sort gives glibc's order: take the fast one.
        if v.iter().all(|h| !h.score.is_nan()) {
            v.sort_unstable_by(cmp);
            return v;
        }
        v.sort_by(|a, b| a.docno.as_bytes().cmp(b.docno.as_bytes()));
        glibc_msort(&mut v, &cmp);
        v
    }

    /// The run that [`parse_run`] reads from the file [`RunWriter`] writes
    /// for `topics` (topic id, hits in rank order) tagged `tag`, without the
    /// text in between: the same topics, documents and evaluation order
    /// (each `f32` score is kept as its exact `f64`, which orders and ties
    /// exactly as the decimal the writer prints; tested). A topic without
    /// hits is absent, as it has no line; a document twice in a topic is
    /// [`Error::DuplicateDoc`] (the lines it would have), a NaN score
    /// [`Error::NanScore`].
    pub fn from_ranked(tag: &str, topics: Vec<(String, Vec<(String, f32)>)>) -> Result<Run> {
        let mut run = Run::default();
        let mut line = 0;
        for (qid, hits) in topics {
            if hits.is_empty() {
                continue;
            }
            if run.tag.is_none() {
                run.tag = Some(tag.to_string());
            }
            let first = line + 1;
            let mut seen: foldhash::HashMap<&str, usize> =
                foldhash::HashMapExt::with_capacity(hits.len());
            for (i, (docno, score)) in hits.iter().enumerate() {
                if score.is_nan() {
                    return Err(Error::NanScore {
                        qid,
                        docid: docno.clone(),
                    });
                }
                if let Some(j) = seen.insert(docno, i) {
                    return Err(Error::DuplicateDoc {
                        qid,
                        docno: docno.clone(),
                        first_line: first + j,
                        line: first + i,
                    });
                }
            }
            line += hits.len();
            let list = run.topics.entry(qid).or_default();
            list.extend(hits.into_iter().map(|(docno, score)| RunHit {
                docno,
                score: f64::from(score),
            }));
        }
        Ok(run)
    }

    /// Number of topics with at least one hit.
    pub fn num_topics(&self) -> usize {
        self.topics.len()
    }

    /// Total number of hits.
    pub fn num_hits(&self) -> usize {
        self.topics.values().map(Vec::len).sum()
    }
}

/// glibc's `qsort` (`msort_with_tmp`): split at `n / 2`, sort both halves,
/// merge taking from the left half while `cmp(left, right) <= 0`. With a
/// consistent `cmp` this is any stable sort; with an inconsistent one (NaN
/// scores) it reproduces glibc's exact output order.
pub fn glibc_msort<T: Clone>(v: &mut [T], cmp: &impl Fn(&T, &T) -> Ordering) {
    let n = v.len();
    if n <= 1 {
        return;
    }
    let n1 = n / 2;
    {
        let (a, b) = v.split_at_mut(n1);
        glibc_msort(a, cmp);
        glibc_msort(b, cmp);
    }
    let mut out: Vec<T> = Vec::with_capacity(n);
    let (mut i, mut j) = (0, n1);
    while i < n1 && j < n {
        if cmp(&v[i], &v[j]) != Ordering::Greater {
            out.push(v[i].clone());
            i += 1;
        } else {
            out.push(v[j].clone());
            j += 1;
        }
    }
    out.extend_from_slice(&v[i..n1]);
    out.extend_from_slice(&v[j..]);
    v.clone_from_slice(&out);
}

/// trec_eval's `comp_sim_docno` on `f64` scores: score descending, then docno
/// descending by byte comparison. Scores are never NaN here.
fn trec_order(sa: f64, da: &str, sb: f64, db: &str) -> Ordering {
    sb.partial_cmp(&sa)
        .unwrap_or(Ordering::Equal)
        .then_with(|| db.as_bytes().cmp(da.as_bytes()))
}

/// Reads and parses a run file; see [`parse_run`]. Errors name the path.
pub fn read_run(path: &Path, dups: Duplicates) -> Result<Run> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_run(&bytes, dups).map_err(|e| Error::InFile {
        path: path.to_path_buf(),
        inner: Box::new(e),
    })
}

/// Parses run text (see the module docs).
pub fn parse_run(bytes: &[u8], dups: Duplicates) -> Result<Run> {
    let text = utf8(bytes)?;
    let mut run = RunBuilder::new(dups);
    for (i, line) in text.lines().enumerate() {
        let lineno = i + 1;
        let fields: Vec<&str> = line.split_ascii_whitespace().collect();
        match fields.len() {
            0 => continue,
            6 => {}
            n => {
                return Err(Error::RunSyntax {
                    line: lineno,
                    expected: "6 fields: qid Q0 docno rank score tag".into(),
                    found: format!("{n} fields: {}", snippet(line)),
                });
            }
        }
        let score: f64 = fields[4].parse().map_err(|_| Error::RunSyntax {
            line: lineno,
            expected: "a number as the score in field 5".into(),
            found: snippet(fields[4]),
        })?;
        run.add(fields[0], fields[2], score, fields[5], lineno)?;
    }
    Ok(run.finish())
}

/// Builds a [`Run`] hit by hit exactly as [`parse_run`] reads lines (the
/// tag of the first hit, the first NaN, duplicates refused or the best
/// copy kept): for runs that come from elsewhere than a file, such as a
/// Python DataFrame.
#[derive(Debug)]
pub struct RunBuilder<'a> {
    run: Run,
    dups: Duplicates,
    // (qid, docno) -> (line, index in the topic's hit list)
    seen: HashMap<(&'a str, &'a str), (usize, usize)>,
}

impl<'a> RunBuilder<'a> {
    /// An empty run; `dups` says what a document retrieved twice does.
    pub fn new(dups: Duplicates) -> Self {
        RunBuilder {
            run: Run::default(),
            dups,
            seen: HashMap::new(),
        }
    }

    /// Adds one hit, from line (or row) `line` (1-based, for errors).
    pub fn add(
        &mut self,
        qid: &'a str,
        docno: &'a str,
        score: f64,
        tag: &str,
        line: usize,
    ) -> Result<()> {
        let run = &mut self.run;
        if run.tag.is_none() {
            run.tag = Some(tag.to_string());
        }
        if score.is_nan() && run.first_nan.is_none() {
            run.first_nan = Some((qid.to_string(), docno.to_string()));
        }
        let hits = run.topics.entry(qid.to_string()).or_default();
        match self.seen.get(&(qid, docno)) {
            Some(&(first_line, idx)) => match self.dups {
                Duplicates::Error => {
                    return Err(Error::DuplicateDoc {
                        qid: qid.into(),
                        docno: docno.into(),
                        first_line,
                        line,
                    });
                }
                Duplicates::KeepBest => {
                    if score > hits[idx].score {
                        hits[idx].score = score;
                    }
                }
            },
            None => {
                self.seen.insert((qid, docno), (line, hits.len()));
                hits.push(RunHit {
                    docno: docno.to_string(),
                    score,
                });
            }
        }
        Ok(())
    }

    /// The run.
    pub fn finish(self) -> Run {
        self.run
    }
}

/// Sorts hits as trec_eval orders a run (score descending, ties by docid
/// descending, byte-wise), removes later copies of a docid (so the
/// best-scored copy is kept), removes NaN scores, and keeps the first `k`.
/// The result is what [`RunWriter::write_topic`] accepts.
pub fn rank_hits(hits: &mut Vec<(String, f32)>, k: usize) {
    hits.retain(|(_, s)| !s.is_nan());
    hits.sort_by(|(da, sa), (db, sb)| trec_order(f64::from(*sa), da, f64::from(*sb), db));
    let mut seen: HashSet<String> = HashSet::with_capacity(hits.len());
    hits.retain(|(d, _)| seen.insert(d.clone()));
    hits.truncate(k);
}

/// Refuses ([`Error::SharedDocid`]) a search result in which a topic
/// lists a docid twice: an index holds each docid once, so the copies come
/// from two indexes searched together. Called on every topic before a run
/// is written, so that nothing of it is.
pub fn check_shared_docids<'a>(
    topics: impl IntoIterator<Item = (&'a str, Vec<&'a str>)>,
) -> Result<()> {
    for (qid, docids) in topics {
        let mut seen: HashSet<&str> = HashSet::with_capacity(docids.len());
        for d in docids {
            if !seen.insert(d) {
                return Err(Error::SharedDocid {
                    qid: qid.into(),
                    docid: d.into(),
                });
            }
        }
    }
    Ok(())
}

/// Checks one field against the run-file id rule
/// ([`sieve_filters::docid::check_id`]: non-empty, no whitespace, C
/// `isspace` or Unicode, no control character), so a written line always
/// splits into exactly six fields.
pub fn check_field(field: &'static str, value: &str) -> Result<()> {
    sieve_filters::docid::check_id(value).map_err(|fault| Error::InvalidRunField {
        field,
        value: sieve_filters::docid::escaped(value),
        fault,
    })
}

/// Writes a run file topic by topic (streaming: one topic in memory at a time).
///
/// Each topic's hits must be in trec_eval order without duplicates (as left
/// by [`rank_hits`]); otherwise [`Error::UnrankedHits`]. Ids and the tag must
/// pass the run-file id rule ([`check_field`], else
/// [`Error::InvalidRunField`]). A topic is checked whole before any of its
/// lines is written; [`write_run`] checks every topic before the first line.
#[derive(Debug)]
pub struct RunWriter<W: Write> {
    out: W,
    tag: String,
    written: HashSet<String>,
}

impl<W: Write> RunWriter<W> {
    /// A writer that tags every line with `tag`.
    pub fn new(out: W, tag: &str) -> Result<Self> {
        check_field("tag", tag)?;
        Ok(RunWriter {
            out,
            tag: tag.to_string(),
            written: HashSet::new(),
        })
    }

    /// Writes the hits of one topic as `qid Q0 docid rank score tag` lines,
    /// rank from 1. An empty `hits` writes nothing. Each topic may be written
    /// once ([`Error::TopicWrittenTwice`]).
    pub fn write_topic<S: AsRef<str>>(&mut self, qid: &str, hits: &[(S, f32)]) -> Result<()> {
        self.check_topic(qid, hits)?;
        for (i, (docid, score)) in hits.iter().enumerate() {
            writeln!(
                self.out,
                "{qid} Q0 {} {} {score} {}",
                docid.as_ref(),
                i + 1,
                self.tag
            )
            .map_err(|source| Error::Write { source })?;
        }
        Ok(())
    }

    /// Checks what [`write_topic`](Self::write_topic) checks, and records
    /// the topic as written, without writing anything: a writer over
    /// [`std::io::sink`] checks a whole run before a real one writes it.
    pub fn check_topic<S: AsRef<str>>(&mut self, qid: &str, hits: &[(S, f32)]) -> Result<()> {
        check_field("qid", qid)?;
        if self.written.contains(qid) {
            return Err(Error::TopicWrittenTwice { qid: qid.into() });
        }
        let mut seen: HashSet<&str> = HashSet::with_capacity(hits.len());
        for (i, (docid, score)) in hits.iter().enumerate() {
            let docid = docid.as_ref();
            check_field("docid", docid)?;
            if score.is_nan() {
                return Err(Error::NanScore {
                    qid: qid.into(),
                    docid: docid.into(),
                });
            }
            let problem = if !seen.insert(docid) {
                Some("a duplicate")
            } else if i > 0 {
                let (pd, ps) = (&hits[i - 1].0, hits[i - 1].1);
                (trec_order(f64::from(ps), pd.as_ref(), f64::from(*score), docid) != Ordering::Less)
                    .then_some("out of order")
            } else {
                None
            };
            if let Some(problem) = problem {
                return Err(Error::UnrankedHits {
                    qid: qid.into(),
                    position: i,
                    docid: docid.into(),
                    problem,
                });
            }
        }
        self.written.insert(qid.to_string());
        Ok(())
    }

    /// Flushes and returns the underlying writer.
    pub fn finish(mut self) -> Result<W> {
        self.out.flush().map_err(|source| Error::Write { source })?;
        Ok(self.out)
    }
}

/// Writes a whole run: each (qid, hits) in the order given; see
/// [`RunWriter`]. Every topic is checked before the first line is written:
/// on an error `w` has received nothing.
pub fn write_run<W: Write, Q: AsRef<str>, D: AsRef<str>>(
    w: W,
    tag: &str,
    topics: &[(Q, Vec<(D, f32)>)],
) -> Result<()> {
    let mut check = RunWriter::new(std::io::sink(), tag)?;
    for (qid, hits) in topics {
        check.check_topic(qid.as_ref(), hits)?;
    }
    let mut rw = RunWriter::new(w, tag)?;
    for (qid, hits) in topics {
        rw.write_topic(qid.as_ref(), hits)?;
    }
    rw.finish().map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parses_and_ranks_like_trec_eval() {
        let r = parse_run(
            b"1 Q0 a 1 2.0 t\n1 Q0 b 2 3 t\n1 Q0 c 3 2.0 t\n\n2 Q0 x 1 -1e3 t\n",
            Duplicates::Error,
        )
        .unwrap();
        assert_eq!(r.tag.as_deref(), Some("t"));
        assert_eq!(r.num_topics(), 2);
        assert_eq!(r.num_hits(), 4);
        let order: Vec<&str> = r.ranked("1").iter().map(|h| h.docno.as_str()).collect();
        // score 3 first; the 2.0 tie broken by docno descending: c before a
        assert_eq!(order, ["b", "c", "a"]);
        assert_eq!(r.ranked("2")[0].score, -1000.0);
        assert!(r.ranked("3").is_empty());
    }

    #[test]
    fn run_errors_carry_lines() {
        let e = parse_run(b"1 Q0 a 1 2 t\n1 Q0 b 2 t\n", Duplicates::Error).unwrap_err();
        assert!(matches!(e, Error::RunSyntax { line: 2, .. }), "{e}");
        let e = parse_run(b"1 Q0 a 1 1.5x t\n", Duplicates::Error).unwrap_err();
        assert!(matches!(e, Error::RunSyntax { line: 1, .. }), "{e}");
        let e = parse_run(
            b"1 Q0 a 1 2 t\n2 Q0 a 1 2 t\n1 Q0 a 2 1 t\n",
            Duplicates::Error,
        )
        .unwrap_err();
        assert!(
            matches!(
                e,
                Error::DuplicateDoc {
                    first_line: 1,
                    line: 3,
                    ..
                }
            ),
            "{e}"
        );
    }

    #[test]
    fn keep_best_duplicate() {
        let r = parse_run(
            b"1 Q0 a 1 1 t\n1 Q0 b 2 2 t\n1 Q0 a 3 5 t\n1 Q0 a 3 4 t\n",
            Duplicates::KeepBest,
        )
        .unwrap();
        assert_eq!(r.hits("1").unwrap().len(), 2);
        assert_eq!(r.ranked("1")[0].docno, "a");
        assert_eq!(r.ranked("1")[0].score, 5.0);
    }

    #[test]
    fn writer_writes_and_validates() {
        let mut hits = vec![
            ("d1".to_string(), 1.5f32),
            ("d2".into(), 2.25),
            ("d1".into(), 0.5),
            ("d3".into(), 1.5),
            ("d4".into(), f32::NAN),
        ];
        rank_hits(&mut hits, 10);
        assert_eq!(
            hits,
            [
                ("d2".to_string(), 2.25),
                ("d3".into(), 1.5),
                ("d1".into(), 1.5)
            ]
        );
        let mut out = Vec::new();
        write_run(&mut out, "tag", &[("7", hits.clone())]).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "7 Q0 d2 1 2.25 tag\n7 Q0 d3 2 1.5 tag\n7 Q0 d1 3 1.5 tag\n"
        );
        let mut w = RunWriter::new(Vec::new(), "t").unwrap();
        let e = w
            .write_topic("1", &[("a", 1.0f32), ("b", 2.0)])
            .unwrap_err();
        assert!(
            matches!(
                e,
                Error::UnrankedHits {
                    position: 1,
                    problem: "out of order",
                    ..
                }
            ),
            "{e}"
        );
        let e = w
            .write_topic("2", &[("b", 1.0f32), ("a", 1.0), ("b", 0.5)])
            .unwrap_err();
        assert!(
            matches!(
                e,
                Error::UnrankedHits {
                    position: 2,
                    problem: "a duplicate",
                    ..
                }
            ),
            "{e}"
        );
        // A refused topic wrote nothing, so it may still be written once.
        w.write_topic("1", &[("a", 1.0f32)]).unwrap();
        let e = w.write_topic("1", &[("a", 1.0f32)]).unwrap_err();
        assert!(matches!(e, Error::TopicWrittenTwice { .. }), "{e}");
        // The whole topic is checked before its first line is written.
        let e = w
            .write_topic("3", &[("ok", 2.0f32), ("a b", 1.0)])
            .unwrap_err();
        assert!(
            matches!(e, Error::InvalidRunField { field: "docid", .. }),
            "{e}"
        );
        assert_eq!(
            String::from_utf8(w.finish().unwrap()).unwrap(),
            "1 Q0 a 1 1 t\n"
        );
        assert!(RunWriter::new(Vec::new(), "").is_err());
    }

    #[test]
    fn from_ranked_refuses_what_the_file_would_not_hold() {
        let t = |h: &[(&str, f32)]| {
            vec![(
                "q".to_string(),
                h.iter().map(|(d, s)| (d.to_string(), *s)).collect(),
            )]
        };
        let e = Run::from_ranked("t", t(&[("a", 2.0), ("b", 1.0), ("a", 0.5)])).unwrap_err();
        assert!(
            matches!(
                e,
                Error::DuplicateDoc {
                    first_line: 1,
                    line: 3,
                    ..
                }
            ),
            "{e}"
        );
        assert!(matches!(
            Run::from_ranked("t", t(&[("a", f32::NAN)])).unwrap_err(),
            Error::NanScore { .. }
        ));
        let r = Run::from_ranked("t", vec![("q".into(), vec![])]).unwrap();
        assert_eq!((r.num_topics(), r.tag), (0, None));
    }

    /// Splits on the six characters C `isspace` treats as space (C
    /// locale), as trec_eval reads a run line.
    fn c_split(s: &str) -> Vec<&str> {
        s.split([' ', '\t', '\n', '\u{b}', '\u{c}', '\r'])
            .filter(|f| !f.is_empty())
            .collect()
    }

    /// Ids of 0 to 6 characters: mostly letters, the rest any whitespace
    /// or control character, or any character at all.
    fn id_strategy() -> impl Strategy<Value = String> {
        let odd = "[\\s\\p{Cc}\u{85}\u{a0}\u{1680}\u{2000}-\u{200b}\u{2028}\u{2029}\u{202f}\u{205f}\u{3000}\u{feff}]";
        let ch = prop_oneof![
            4 => proptest::string::string_regex("[a-z0-9]").unwrap(),
            3 => proptest::string::string_regex(odd).unwrap(),
            1 => any::<char>().prop_map(String::from),
        ];
        proptest::collection::vec(ch, 0..6).prop_map(|v| v.concat())
    }

    fn hits_strategy() -> impl Strategy<Value = Vec<(String, f32)>> {
        // few distinct docids and scores, to force ties and duplicates
        prop::collection::vec(
            (
                "[a-d]{1,2}",
                prop_oneof![
                    (0u8..4).prop_map(f32::from),
                    any::<f32>().prop_filter("finite", |f| f.is_finite()),
                ],
            ),
            0..40,
        )
    }

    proptest! {
        #[test]
        fn rank_hits_matches_trec_eval_order(mut hits in hits_strategy(), k in 0usize..50) {
            let orig = hits.clone();
            rank_hits(&mut hits, k);
            prop_assert!(hits.len() <= k);
            let ids: HashSet<&String> = hits.iter().map(|(d, _)| d).collect();
            prop_assert_eq!(ids.len(), hits.len(), "no duplicates");
            // each kept docid has its best score
            for (d, s) in &hits {
                let best = orig.iter().filter(|(o, _)| o == d).map(|(_, s)| *s).fold(f32::MIN, f32::max);
                prop_assert_eq!(*s, best);
            }
            // write, read back, and re-rank as trec_eval would: same order
            let mut out = Vec::new();
            write_run(&mut out, "t", &[("q", hits.clone())]).unwrap();
            let run = parse_run(&out, Duplicates::Error).unwrap();
            let back: Vec<&str> = run.ranked("q").iter().map(|h| h.docno.as_str()).collect();
            let want: Vec<&str> = hits.iter().map(|(d, _)| d.as_str()).collect();
            prop_assert_eq!(back, want);
            // the file's rank column agrees with trec_eval's order
            for (i, h) in run.hits("q").unwrap_or_default().iter().enumerate() {
                prop_assert_eq!(&h.docno, &hits[i].0);
                prop_assert_eq!(h.score as f32, hits[i].1);
            }
        }

        #[test]
        fn from_ranked_is_the_written_file_read_back(
            topics in prop::collection::vec((hits_strategy(), 0usize..30), 0..5),
        ) {
            // ranked hits per topic, as a search gives them
            let topics: Vec<(String, Vec<(String, f32)>)> = topics
                .into_iter()
                .enumerate()
                .map(|(i, (mut h, k))| {
                    rank_hits(&mut h, k);
                    (format!("q{i}"), h)
                })
                .collect();
            let mut out = Vec::new();
            write_run(&mut out, "t", &topics).unwrap();
            let parsed = parse_run(&out, Duplicates::Error).unwrap();
            let direct = Run::from_ranked("t", topics.clone()).unwrap();
            prop_assert_eq!(direct.num_topics(), parsed.num_topics());
            prop_assert_eq!(direct.num_hits(), parsed.num_hits());
            for q in parsed.topic_ids() {
                let names = |v: Vec<&RunHit>| v.iter().map(|h| h.docno.clone()).collect::<Vec<_>>();
                prop_assert_eq!(names(direct.ranked(q)), names(parsed.ranked(q)));
                prop_assert_eq!(names(direct.trec_eval_ranked(q)), names(parsed.trec_eval_ranked(q)));
                for (a, b) in direct.hits(q).unwrap().iter().zip(parsed.hits(q).unwrap()) {
                    prop_assert_eq!(a.score as f32, b.score as f32);
                }
            }
            if parsed.num_topics() > 0 {
                prop_assert_eq!(direct.tag.as_deref(), Some("t"));
            }
        }

        /// For any qid and docid (biased toward whitespace and control
        /// characters): the writer writes a line exactly when the run-file
        /// id rule accepts both, that line has six fields under C
        /// `isspace` splitting (trec_eval) and Unicode whitespace
        /// splitting (Python's `str.split`, `split_whitespace`), with the
        /// ids as given; a refused id writes nothing. And the rule refuses
        /// exactly the ids that would break this: empty, split by either,
        /// or holding a control character (C0, DEL, C1).
        #[test]
        fn run_lines_have_six_fields_for_every_id_the_rule_accepts(
            qid in id_strategy(),
            docid in id_strategy(),
        ) {
            let accepted = check_field("qid", &qid).is_ok() && check_field("docid", &docid).is_ok();
            let mut out = Vec::new();
            let written = write_run(&mut out, "t", &[(&qid, vec![(&docid, 1.5f32)])]);
            prop_assert_eq!(written.is_ok(), accepted);
            if accepted {
                let line = std::str::from_utf8(&out).unwrap().strip_suffix('\n').unwrap();
                let c: Vec<&str> = c_split(line);
                let u: Vec<&str> = line.split_whitespace().collect();
                prop_assert_eq!(&c, &u);
                prop_assert_eq!(c, vec![qid.as_str(), "Q0", docid.as_str(), "1", "1.5", "t"]);
            } else {
                prop_assert!(out.is_empty(), "a refused id wrote {:?}", out);
            }
            for id in [&qid, &docid] {
                let breaks = id.is_empty()
                    || c_split(id) != vec![id.as_str()]
                    || id.split_whitespace().collect::<Vec<_>>() != vec![id.as_str()]
                    || id.chars().any(|c| (c as u32) < 0x20 || (0x7f..0xa0).contains(&(c as u32)));
                prop_assert_eq!(sieve_filters::docid::check_id(id).is_err(), breaks, "{:?}", id);
            }
        }

        #[test]
        fn f32_scores_never_tie_after_round_trip(a in any::<f32>(), b in any::<f32>()) {
            prop_assume!(a.is_finite() && b.is_finite() && a < b);
            let pa: f64 = format!("{a}").parse().unwrap();
            let pb: f64 = format!("{b}").parse().unwrap();
            prop_assert!(pa < pb);
        }
    }
}
