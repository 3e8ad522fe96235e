//! TREC relevance judgments ("qrels"): `qid iter docno rel`.
//!
//! Lines are split on ASCII whitespace into exactly four fields; blank lines
//! are skipped. `iter` is ignored (it is `0` or `Q0`). `rel` is a signed
//! integer: the Web Track uses `-2` for junk/spam, graded levels `0..=4`,
//! Cranfield `-1`. Topic and document ids are kept exactly as written and
//! compared byte-wise. A (topic, document) pair judged twice is an error, as in
//! trec_eval.
//!
//! Cranfield's `cranqrel` form, three columns `qid docno rel`, is read too
//! (as ir_datasets' `cranfield` reader does): the form is fixed by the first
//! non-blank line, and a line of the other width is an error. Grades are kept
//! as written, as ir_datasets keeps them: in `cranqrel` 1 is the most relevant
//! ("a complete answer") and 4 the least, -1 is "of no interest". trec_eval's
//! binary measures (MAP, P@k, ...) count every grade above 0 as relevant, so
//! the inverted order does not change them; graded measures (nDCG) would read
//! it backwards.
//!
//! The TREC 2009 statAP "prels" files (`topic docid rel method prob`, five
//! columns) are refused with [`Error::Prels`]: they are sampled judgments with
//! inclusion probabilities, not qrels, and trec_eval's MAP does not apply.
//!
//! # Sample qrels (`sample_eval.pl`)
//!
//! The qrels of a stratified sampled pool, as NIST's `sample_eval.pl` reads
//! them (TREC Terabyte/Million Query/Web/Clinical tracks, TRECVID), are five
//! columns `qid iter docno stratum rel`: `stratum` names the part of the
//! pool the document was sampled from (any token, compared byte-wise),
//! `rel` is the grade, `-1` for a document of the pool that was not sampled.
//! Five columns are also statAP's prels, so this format is never guessed:
//! [`parse_qrels_as`] with [`QrelsFormat::Sample`] reads it (every line must
//! have five fields; a line of another width is refused with its number),
//! and [`QrelsFormat::Detect`] refuses a five-column file saying so. The
//! grades and documents are those of any qrels (trec_eval's measures read
//! them as 4-column qrels: `-1` is "in the pool, not judged"); the strata
//! feed `xinfAP` ([`crate::eval`]).

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::Path;

use crate::text::{snippet, utf8};
use crate::{Error, Result};

/// The layout of a qrels file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum QrelsFormat {
    /// Fixed by the first non-blank line: four fields TREC qrels, three
    /// `cranqrel`; five are refused ([`Error::Prels`], which names the
    /// sample format).
    #[default]
    Detect,
    /// `qid iter docno rel` only.
    Trec,
    /// `sample_eval.pl`'s `qid iter docno stratum rel` only.
    Sample,
}

impl std::str::FromStr for QrelsFormat {
    type Err = Error;
    /// `detect`, `trec` or `sample`.
    fn from_str(s: &str) -> Result<QrelsFormat> {
        match s {
            "detect" => Ok(QrelsFormat::Detect),
            "trec" => Ok(QrelsFormat::Trec),
            "sample" => Ok(QrelsFormat::Sample),
            _ => Err(Error::InvalidParameter {
                name: "qrels-format",
                expected: "detect, trec or sample",
                got: s.to_string(),
            }),
        }
    }
}

/// The judgments of one topic.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TopicQrels {
    /// foldhash (seeded per map, as std's hasher; several times faster
    /// on short docids).
    judgments: foldhash::HashMap<String, i64>,
    /// Sample qrels: the stratum of each judged document, as an index
    /// into `strata`. Empty for other qrels.
    stratum_of: foldhash::HashMap<String, u32>,
    /// Sample qrels: the topic's stratum names, in first-seen order.
    strata: Vec<String>,
}

impl TopicQrels {
    /// The judgment of `docno`, if it was judged.
    pub fn get(&self, docno: &str) -> Option<i64> {
        self.judgments.get(docno).copied()
    }

    /// Number of judged documents (any grade, including negative ones).
    pub fn len(&self) -> usize {
        self.judgments.len()
    }

    /// True if no document is judged for this topic.
    pub fn is_empty(&self) -> bool {
        self.judgments.is_empty()
    }

    /// Number of documents with grade `>= level` (trec_eval's `num_rel` with `-l level`).
    pub fn num_rel(&self, level: i64) -> usize {
        self.judgments.values().filter(|&&r| r >= level).count()
    }

    /// All judgments as (docno, grade), sorted by docno (byte order).
    pub fn sorted(&self) -> Vec<(&str, i64)> {
        let mut v: Vec<(&str, i64)> = self
            .judgments
            .iter()
            .map(|(d, &r)| (d.as_str(), r))
            .collect();
        v.sort_unstable();
        v
    }

    /// Iterates over (docno, grade) in unspecified order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, i64)> {
        self.judgments.iter().map(|(d, &r)| (d.as_str(), r))
    }

    /// True when the judgments come from sample qrels (with strata).
    pub fn is_sampled(&self) -> bool {
        !self.strata.is_empty()
    }

    /// The stratum of `docno` (an index into [`TopicQrels::strata`]), if
    /// the topic's qrels are sampled and judge it.
    pub fn stratum(&self, docno: &str) -> Option<u32> {
        self.stratum_of.get(docno).copied()
    }

    /// The stratum names of sample qrels (empty for other qrels).
    pub fn strata(&self) -> &[String] {
        &self.strata
    }
}

/// All judgments of a qrels file, by topic id.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Qrels {
    topics: BTreeMap<String, TopicQrels>,
}

impl Qrels {
    /// The judgments of topic `qid`, if it has any line in the file.
    pub fn topic(&self, qid: &str) -> Option<&TopicQrels> {
        self.topics.get(qid)
    }

    /// Topic ids with at least one judgment, in byte order.
    pub fn topic_ids(&self) -> impl Iterator<Item = &str> {
        self.topics.keys().map(String::as_str)
    }

    /// Number of topics with at least one judgment.
    pub fn num_topics(&self) -> usize {
        self.topics.len()
    }

    /// Total number of judgments.
    pub fn num_judgments(&self) -> usize {
        self.topics.values().map(TopicQrels::len).sum()
    }

    /// The judgments of the topics `keep` accepts.
    pub fn only(&self, keep: impl Fn(&str) -> bool) -> Qrels {
        Qrels {
            topics: self
                .topics
                .iter()
                .filter(|(q, _)| keep(q))
                .map(|(q, t)| (q.clone(), t.clone()))
                .collect(),
        }
    }

    /// Adds one judgment; returns the previous grade if the pair was already judged.
    pub fn insert(&mut self, qid: &str, docno: &str, rel: i64) -> Option<i64> {
        self.topics
            .entry(qid.to_string())
            .or_default()
            .judgments
            .insert(docno.to_string(), rel)
    }

    /// Adds one judgment of sample qrels, from stratum `stratum`; returns
    /// the previous grade if the pair was already judged.
    pub fn insert_sampled(
        &mut self,
        qid: &str,
        docno: &str,
        stratum: &str,
        rel: i64,
    ) -> Option<i64> {
        let t = self.topics.entry(qid.to_string()).or_default();
        let i = match t.strata.iter().position(|s| s == stratum) {
            Some(i) => i,
            None => {
                t.strata.push(stratum.to_string());
                t.strata.len() - 1
            }
        };
        t.stratum_of.insert(docno.to_string(), i as u32);
        t.judgments.insert(docno.to_string(), rel)
    }

    /// True when any topic's judgments come from sample qrels.
    pub fn is_sampled(&self) -> bool {
        self.topics.values().any(TopicQrels::is_sampled)
    }

    /// Writes the judgments as `qid 0 docno rel` lines (sample qrels:
    /// `qid 0 docno stratum rel`), topics and documents in byte order
    /// (deterministic). [`parse_qrels`] (sample qrels: [`parse_qrels_as`]
    /// with [`QrelsFormat::Sample`]) reads the output back to an equal
    /// value.
    pub fn write<W: Write>(&self, mut w: W) -> Result<()> {
        for (qid, t) in &self.topics {
            for (docno, rel) in t.sorted() {
                let line = match t.stratum(docno) {
                    Some(s) => writeln!(w, "{qid} 0 {docno} {} {rel}", t.strata[s as usize]),
                    None => writeln!(w, "{qid} 0 {docno} {rel}"),
                };
                line.map_err(|source| Error::Write { source })?;
            }
        }
        w.flush().map_err(|source| Error::Write { source })
    }
}

/// Reads and parses a qrels file; see [`parse_qrels`]. Errors name the path.
pub fn read_qrels(path: &Path) -> Result<Qrels> {
    read_qrels_as(path, QrelsFormat::Detect)
}

/// Reads and parses a qrels file of `format`; see [`parse_qrels_as`].
/// Errors name the path.
pub fn read_qrels_as(path: &Path, format: QrelsFormat) -> Result<Qrels> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_qrels_as(&bytes, format).map_err(|e| Error::InFile {
        path: path.to_path_buf(),
        inner: Box::new(e),
    })
}

/// Parses qrels text (`qid iter docno rel` per line; see the module docs).
pub fn parse_qrels(bytes: &[u8]) -> Result<Qrels> {
    parse_qrels_as(bytes, QrelsFormat::Detect)
}

/// The fields a line must have, fixed by the format or the first line.
fn expected_fields(format: QrelsFormat, width: Option<usize>) -> String {
    match (format, width) {
        (QrelsFormat::Sample, _) => "5 fields: qid iter docno stratum rel".into(),
        (_, Some(3)) => "3 fields like the first line: qid docno rel".into(),
        _ => "4 fields: qid iter docno rel".into(),
    }
}

/// Parses qrels text of `format` (module docs): blank lines skipped, a
/// line of the wrong width, a grade that is not an integer or a pair
/// judged twice refused with its line number.
pub fn parse_qrels_as(bytes: &[u8], format: QrelsFormat) -> Result<Qrels> {
    let text = utf8(bytes)?;
    let mut qrels = Qrels::default();
    // (qid, docno) -> line, to report both lines of a duplicate.
    let mut lines: HashMap<(&str, &str), usize> = HashMap::new();
    // The width: 5 (sample), 4 (TREC) or, detected, 3 (cranqrel).
    let mut width = match format {
        QrelsFormat::Detect => None,
        QrelsFormat::Trec => Some(4),
        QrelsFormat::Sample => Some(5),
    };
    for (i, line) in text.lines().enumerate() {
        let lineno = i + 1;
        let fields: Vec<&str> = line.split_ascii_whitespace().collect();
        match (fields.len(), width) {
            (0, _) => continue,
            (n @ (3 | 4), None) => width = Some(n),
            (n, Some(w)) if n == w => {}
            (5, None | Some(4)) => return Err(Error::Prels { line: lineno }),
            (n, w) => {
                return Err(Error::QrelsSyntax {
                    line: lineno,
                    expected: expected_fields(format, w),
                    found: format!("{n} fields: {}", snippet(line)),
                });
            }
        }
        let n = fields.len();
        let (qid, docno) = (fields[0], fields[if n == 3 { 1 } else { 2 }]);
        let rel: i64 = fields[n - 1].parse().map_err(|_| Error::QrelsSyntax {
            line: lineno,
            expected: format!("an integer relevance grade in field {n}"),
            found: snippet(fields[n - 1]),
        })?;
        if let Some(first_line) = lines.insert((qid, docno), lineno) {
            return Err(Error::DuplicateJudgment {
                qid: qid.into(),
                docno: docno.into(),
                first_line,
                line: lineno,
            });
        }
        if n == 5 {
            qrels.insert_sampled(qid, docno, fields[3], rel);
        } else {
            qrels.insert(qid, docno, rel);
        }
    }
    Ok(qrels)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_graded_and_negative() {
        let q = parse_qrels(b"51 0 a -2\n51 0 b 3\n\n52 Q0 c 0\n").unwrap();
        assert_eq!(q.num_topics(), 2);
        assert_eq!(q.topic("51").unwrap().get("a"), Some(-2));
        assert_eq!(q.topic("51").unwrap().num_rel(1), 1);
        assert_eq!(q.topic("52").unwrap().num_rel(1), 0);
        assert_eq!(q.topic_ids().collect::<Vec<_>>(), ["51", "52"]);
    }

    #[test]
    fn regression_prels_refused() {
        let e = parse_qrels(b"1 clueweb09-en0003-55-31884 0 0 1\n").unwrap_err();
        assert!(matches!(e, Error::Prels { line: 1 }));
        let msg = e.to_string();
        assert!(msg.contains("statAP") && msg.contains("not qrels"), "{msg}");
    }

    #[test]
    fn errors_carry_lines() {
        let e = parse_qrels(b"1 0 a 1\n1 0 b x\n").unwrap_err();
        assert!(matches!(e, Error::QrelsSyntax { line: 2, .. }), "{e}");
        let e = parse_qrels(b"1 0 a 1\n1 0 b\n").unwrap_err();
        assert!(matches!(e, Error::QrelsSyntax { line: 2, .. }), "{e}");
        let e = parse_qrels(b"1 0 a 1\n2 0 a 1\n1 0 a 0\n").unwrap_err();
        assert!(
            matches!(
                e,
                Error::DuplicateJudgment {
                    first_line: 1,
                    line: 3,
                    ..
                }
            ),
            "{e}"
        );
    }

    #[test]
    fn write_round_trips() {
        let q = parse_qrels(b"2 0 z 1\n10 0 a -2\n2 0 b 4\n").unwrap();
        let mut out = Vec::new();
        q.write(&mut out).unwrap();
        assert_eq!(
            String::from_utf8(out.clone()).unwrap(),
            "10 0 a -2\n2 0 b 4\n2 0 z 1\n"
        );
        assert_eq!(parse_qrels(&out).unwrap(), q);
    }

    #[test]
    fn cranqrel_three_columns_keep_grades_as_written() {
        let q = parse_qrels(b"1 184 2 \n1 29 -1\n2 12 4\n").unwrap();
        assert_eq!(q.num_judgments(), 3);
        assert_eq!(q.topic("1").unwrap().get("184"), Some(2));
        assert_eq!(q.topic("1").unwrap().get("29"), Some(-1));
        assert_eq!(q.topic("1").unwrap().num_rel(1), 1);
        assert_eq!(q.topic("2").unwrap().get("12"), Some(4));
    }

    #[test]
    fn cranqrel_mixed_widths_are_refused() {
        let e = parse_qrels(b"1 184 2\n1 0 29 1\n").unwrap_err();
        assert!(matches!(e, Error::QrelsSyntax { line: 2, .. }), "{e}");
        assert!(e.to_string().contains("qid docno rel"), "{e}");
        let e = parse_qrels(b"1 0 29 1\n1 184 2\n").unwrap_err();
        assert!(matches!(e, Error::QrelsSyntax { line: 2, .. }), "{e}");
    }

    #[test]
    fn sample_qrels_keep_strata_and_round_trip() {
        let text = b"1 0 a s1 1\n1 0 b s2 -1\n1 0 c s1 0\n2 0 a deep 2\n";
        let q = parse_qrels_as(text, QrelsFormat::Sample).unwrap();
        let t = q.topic("1").unwrap();
        assert!(q.is_sampled() && t.is_sampled());
        assert_eq!(t.get("b"), Some(-1));
        assert_eq!(t.strata(), ["s1", "s2"]);
        assert_eq!(t.stratum("c"), Some(0));
        assert_eq!(t.stratum("b"), Some(1));
        assert_eq!(t.num_rel(1), 1);
        let mut out = Vec::new();
        q.write(&mut out).unwrap();
        assert_eq!(parse_qrels_as(&out, QrelsFormat::Sample).unwrap(), q);
        assert!(!parse_qrels(b"1 0 a 1\n").unwrap().is_sampled());
    }

    #[test]
    fn regression_mixed_sample_qrels_refused_with_line_and_reason() {
        // a 4-column line in sample qrels
        let e = parse_qrels_as(b"1 0 a s1 1\n1 0 b 1\n", QrelsFormat::Sample).unwrap_err();
        assert!(matches!(e, Error::QrelsSyntax { line: 2, .. }), "{e}");
        assert!(e.to_string().contains("qid iter docno stratum rel"), "{e}");
        // a 5-column line in TREC qrels, read as TREC or detected
        for f in [QrelsFormat::Trec, QrelsFormat::Detect] {
            let e = parse_qrels_as(b"1 0 a 1\n\n1 0 b s1 1\n", f).unwrap_err();
            assert!(matches!(e, Error::Prels { line: 3 }), "{e}");
            assert!(e.to_string().contains("--qrels-format sample"), "{e}");
        }
        // 3 columns are cranqrel only when detected
        let e = parse_qrels_as(b"1 184 2\n", QrelsFormat::Trec).unwrap_err();
        assert!(matches!(e, Error::QrelsSyntax { line: 1, .. }), "{e}");
        let e = parse_qrels_as(b"1 0 a s1 x\n", QrelsFormat::Sample).unwrap_err();
        assert!(matches!(e, Error::QrelsSyntax { line: 1, .. }), "{e}");
        let e = parse_qrels_as(b"1 0 a s1 1\n1 0 a s2 0\n", QrelsFormat::Sample).unwrap_err();
        assert!(matches!(e, Error::DuplicateJudgment { line: 2, .. }), "{e}");
        assert_eq!(
            "sample".parse::<QrelsFormat>().unwrap(),
            QrelsFormat::Sample
        );
        assert!("tsv".parse::<QrelsFormat>().is_err());
    }

    #[test]
    fn cranqrel_from_shared_data() {
        let Some(path) = sieve_testdata::shared_file("cranfield/cranqrel", "cranqrel") else {
            return;
        };
        let q = read_qrels(&path).unwrap();
        assert_eq!(q.num_topics(), 225);
        assert_eq!(q.num_judgments(), 1837);
    }
}
