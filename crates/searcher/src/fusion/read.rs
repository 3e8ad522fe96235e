//! Reading a TREC run for fusion: unlike [`crate::run`], which evaluation
//! uses, fusion keeps each line's rank column (reciprocal rank fusion
//! scores it), parses the score straight to `f32` (Anserini's
//! `Float.parseFloat`; parsing via `f64` could round differently), keeps
//! each topic's lines in file order, and keeps only the first `depth` lines
//! of each topic.
//!
//! The rules are those of [`crate::run::parse_run`] where they overlap:
//! lines split on ASCII whitespace into exactly six fields, blank lines
//! skipped, topic and document ids checked by the run-file id rule
//! ([`crate::run::check_field`]). In addition: the rank must be a 32-bit
//! integer and the score a finite number; a document twice in one topic is
//! refused ([`Error::FusionDuplicate`]), and so is a run without a line
//! ([`Error::EmptyFusionRun`]).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use crate::text::{snippet, utf8};
use crate::{Error, Result};

/// One line of a run, as fusion reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct FusionHit {
    /// The document id.
    pub docid: String,
    /// The rank column.
    pub rank: i32,
    /// The score column, parsed as `f32`.
    pub score: f32,
}

/// A run read for fusion: each topic's first `depth` lines, in file order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FusionRun {
    /// The file read (for messages).
    pub path: PathBuf,
    /// Hits by topic id.
    pub topics: BTreeMap<String, Vec<FusionHit>>,
    /// Lines read (every non-blank line, also those beyond `depth`).
    pub lines: usize,
}

/// Reads run file `path` for fusion, keeping the first `depth` lines of
/// each topic. Errors name the path.
pub fn read_fusion_run(path: &Path, depth: usize) -> Result<FusionRun> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_fusion_run(&bytes, path, depth)
}

/// Parses run text for fusion; `path` names the source in errors.
pub fn parse_fusion_run(bytes: &[u8], path: &Path, depth: usize) -> Result<FusionRun> {
    let in_file = |e: Error| Error::InFile {
        path: path.to_path_buf(),
        inner: Box::new(e),
    };
    let text = utf8(bytes).map_err(in_file)?;
    let mut run = FusionRun {
        path: path.to_path_buf(),
        ..FusionRun::default()
    };
    let mut seen: HashMap<(&str, &str), usize> = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let lineno = i + 1;
        let fields: Vec<&str> = line.split_ascii_whitespace().collect();
        if fields.is_empty() {
            continue;
        }
        let (qid, docid, hit) = parse_line(line, &fields, lineno).map_err(in_file)?;
        if let Some(&first_line) = seen.get(&(qid, docid)) {
            return Err(Error::FusionDuplicate {
                path: path.to_path_buf(),
                qid: qid.into(),
                docid: docid.into(),
                first_line,
                line: lineno,
            });
        }
        seen.insert((qid, docid), lineno);
        run.lines += 1;
        let hits = run.topics.entry(qid.to_string()).or_default();
        if hits.len() < depth {
            hits.push(hit);
        }
    }
    if run.lines == 0 {
        return Err(Error::EmptyFusionRun {
            path: path.to_path_buf(),
        });
    }
    Ok(run)
}

/// One non-blank line's topic id, document id and hit.
fn parse_line<'a>(
    line: &str,
    fields: &[&'a str],
    lineno: usize,
) -> Result<(&'a str, &'a str, FusionHit)> {
    let syntax = |expected: &str, found: String| Error::RunSyntax {
        line: lineno,
        expected: expected.into(),
        found,
    };
    if fields.len() != 6 {
        return Err(syntax(
            "6 fields: qid Q0 docno rank score tag",
            format!("{} fields: {}", fields.len(), snippet(line)),
        ));
    }
    for (name, value) in [("qid", fields[0]), ("docid", fields[2])] {
        crate::run::check_field(name, value)
            .map_err(|e| syntax("ids the run-file id rule accepts", e.to_string()))?;
    }
    let rank: i32 = fields[3].parse().map_err(|_| {
        syntax(
            "a 32-bit integer as the rank in field 4",
            snippet(fields[3]),
        )
    })?;
    let score = fields[4]
        .parse::<f32>()
        .ok()
        .filter(|s| s.is_finite())
        .ok_or_else(|| {
            syntax(
                "a finite 32-bit number as the score in field 5",
                snippet(fields[4]),
            )
        })?;
    let hit = FusionHit {
        docid: fields[2].to_string(),
        rank,
        score,
    };
    Ok((fields[0], fields[2], hit))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str, depth: usize) -> Result<FusionRun> {
        parse_fusion_run(text.as_bytes(), Path::new("r.run"), depth)
    }

    #[test]
    fn keeps_rank_f32_score_and_depth() {
        let r = parse(
            "1 Q0 a 1 2.5 t\n\n1 Q0 b 7 0.1 t\n2 Q0 a 1 -3 t\n1 Q0 c 3 1 t\n",
            2,
        )
        .unwrap();
        assert_eq!(r.lines, 4);
        let one = &r.topics["1"];
        assert_eq!(one.len(), 2, "depth 2 keeps a and b");
        assert_eq!(
            (one[1].docid.as_str(), one[1].rank, one[1].score),
            ("b", 7, 0.1f32)
        );
        assert_eq!(r.topics["2"][0].score, -3.0);
    }

    #[test]
    fn refuses_with_path_and_line() {
        let msg = |t: &str| parse(t, 10).unwrap_err().to_string();
        let m = msg("1 Q0 a 1 2 t\n1 Q0 b 2 t\n");
        assert!(m.contains("r.run") && m.contains("line 2"), "{m}");
        let m = msg("1 Q0 a x 2 t\n");
        assert!(m.contains("rank") && m.contains("line 1"), "{m}");
        for bad in ["nan", "inf", "1e39", "0x1p3", "1f"] {
            let m = msg(&format!("1 Q0 a 1 {bad} t\n"));
            assert!(m.contains("finite") && m.contains("line 1"), "{bad}: {m}");
        }
        let e = parse("1 Q0 a 1 2 t\n2 Q0 a 1 2 t\n1 Q0 a 2 1 t\n", 10).unwrap_err();
        assert!(
            matches!(&e, Error::FusionDuplicate { first_line: 1, line: 3, qid, docid, .. } if qid == "1" && docid == "a"),
            "{e}"
        );
        assert!(matches!(
            parse(" \n\n", 10).unwrap_err(),
            Error::EmptyFusionRun { .. }
        ));
        let m = msg("1 Q0 a\u{7} 1 2 t\n");
        assert!(m.contains("line 1"), "{m}");
    }
}
