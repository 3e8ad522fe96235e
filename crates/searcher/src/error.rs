//! The one error type of `sieve-searcher`.

use std::path::PathBuf;

/// Everything that can go wrong while reading topics, qrels and runs, or
/// while searching. Variants carry the evidence.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An I/O error on a named file.
    #[error("{path}: {source}")]
    Io {
        /// The file being read or written.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A parameter value outside its valid range.
    #[error("invalid {name}: expected {expected}, got {got}")]
    InvalidParameter {
        /// The parameter.
        name: &'static str,
        /// The valid range.
        expected: &'static str,
        /// The value given.
        got: String,
    },
    /// An index could not be read as a sieve index.
    #[error("index {index}: {detail}")]
    Index {
        /// The index (directory or shard name).
        index: String,
        /// What went wrong.
        detail: String,
    },
    /// A run needs something the index was built without.
    #[error(
        "index {index} was built without {what}, which {needed_by} needs: rebuild it with `sieve-index build {flag}`"
    )]
    IndexLacks {
        /// The index directory.
        index: String,
        /// What it lacks (`term positions`).
        what: &'static str,
        /// What needs it (`--sdm`).
        needed_by: String,
        /// The build flag that adds it (`--positions`).
        flag: &'static str,
    },
    /// An error from tantivy.
    #[error("tantivy: {0}")]
    Tantivy(#[from] tantivy::TantivyError),
    /// An error reading a file of the index (`sieve-format`).
    #[error(transparent)]
    Format(#[from] sieve_format::Error),
    /// An error from the filters library (e.g. an invalid threshold).
    #[error(transparent)]
    Filters(#[from] sieve_filters::Error),

    /// An error found while parsing the contents of a named file; `source`
    /// carries the line and what was expected.
    #[error("{path}: {inner}")]
    InFile {
        /// The file being parsed.
        path: PathBuf,
        /// What went wrong inside it (shown in this error's message, so not
        /// also reported as its `source`).
        inner: Box<Error>,
    },

    /// An I/O error while writing to an unnamed sink (e.g. a run written to
    /// standard output).
    #[error("write failed: {source}")]
    Write {
        /// The underlying error.
        source: std::io::Error,
    },

    /// A line of a topic, qrels or run file is not valid UTF-8.
    #[error("line {line}: invalid UTF-8 at byte offset {offset} of the file")]
    InvalidUtf8 {
        /// 1-based line number.
        line: usize,
        /// 0-based byte offset of the first invalid byte in the whole input.
        offset: usize,
    },

    /// The topic file matches none of the supported formats.
    #[error("{}", unknown_format_message(tried, *line, found))]
    UnknownTopicFormat {
        /// The formats that were tried, comma separated.
        tried: String,
        /// 1-based line number of the first non-blank line (0 if the input is blank).
        line: usize,
        /// The start of that line.
        found: String,
    },

    /// A topic file in a recognised format is malformed.
    #[error("{format} topics, line {line}: expected {expected}, found {found:?}")]
    TopicSyntax {
        /// The format being parsed (`trec-sgml`, `web-xml`, ...).
        format: &'static str,
        /// 1-based line number.
        line: usize,
        /// What the parser expected.
        expected: String,
        /// What it found instead (truncated).
        found: String,
    },

    /// The same topic id occurs twice in a topic file.
    #[error("topic {id:?} defined twice: lines {first_line} and {line}")]
    DuplicateTopic {
        /// The topic id.
        id: String,
        /// 1-based line of the first definition.
        first_line: usize,
        /// 1-based line of the second definition.
        line: usize,
    },

    /// A qrels line is malformed.
    #[error("qrels line {line}: expected {expected}, found {found:?}")]
    QrelsSyntax {
        /// 1-based line number.
        line: usize,
        /// What the parser expected.
        expected: String,
        /// What it found instead (truncated).
        found: String,
    },

    /// The file is a TREC 2009 statAP "prels" file, not a qrels file.
    #[error(
        "line {line} has 5 columns (topic docid rel method prob): this is a statAP prels \
         file, not qrels; trec_eval MAP does not apply to it (NIST evaluated these \
         judgments with statAP_MQ_eval); if it is sample_eval.pl's sample qrels (qid iter \
         docno stratum rel), give --qrels-format sample"
    )]
    Prels {
        /// 1-based line number of the first 5-column line.
        line: usize,
    },

    /// The same (topic, document) pair is judged twice in a qrels file.
    #[error("qrels: topic {qid:?} document {docno:?} judged twice: lines {first_line} and {line}")]
    DuplicateJudgment {
        /// The topic id.
        qid: String,
        /// The document id.
        docno: String,
        /// 1-based line of the first judgment.
        first_line: usize,
        /// 1-based line of the second judgment.
        line: usize,
    },

    /// A run line is malformed.
    #[error("run line {line}: expected {expected}, found {found:?}")]
    RunSyntax {
        /// 1-based line number.
        line: usize,
        /// What the parser expected.
        expected: String,
        /// What it found instead (truncated).
        found: String,
    },

    /// The same document is retrieved twice for one topic (trec_eval refuses
    /// such runs: "duplicate docs").
    #[error(
        "run: topic {qid:?} retrieves document {docno:?} twice: lines {first_line} and {line} \
         (trec_eval refuses duplicates; pass --dedup to keep the best-scored copy)"
    )]
    DuplicateDoc {
        /// The topic id.
        qid: String,
        /// The document id.
        docno: String,
        /// 1-based line of the first occurrence.
        first_line: usize,
        /// 1-based line of the second occurrence.
        line: usize,
    },

    /// A value given to the run writer cannot be written as a run-file
    /// field: the run-file id rule ([`sieve_filters::docid::check_id`])
    /// refuses it. Nothing of the run was written.
    #[error(
        "run writer: {field} \"{value}\" is refused ({fault}): a run file's fields must be non-empty, without whitespace or control characters"
    )]
    InvalidRunField {
        /// Which field (`tag`, `qid`, `docid`).
        field: &'static str,
        /// The offending value, escaped ([`sieve_filters::docid::escaped`]).
        value: String,
        /// The rule broken and where (`whitespace: U+00A0 at byte 2`).
        fault: sieve_filters::docid::IdFault,
    },

    /// The run writer was given a NaN score.
    #[error("run writer: topic {qid:?} document {docid:?} has a NaN score")]
    NanScore {
        /// The topic id.
        qid: String,
        /// The document id.
        docid: String,
    },

    /// The run writer was given hits that are not in trec_eval order (score
    /// descending, ties by docid descending) or that repeat a docid; call
    /// `rank_hits` first.
    #[error(
        "run writer: topic {qid:?} hit {position} ({docid:?}) is {problem}; call rank_hits first"
    )]
    UnrankedHits {
        /// The topic id.
        qid: String,
        /// 0-based position of the offending hit.
        position: usize,
        /// Its docid.
        docid: String,
        /// `"out of order"` or `"a duplicate"`.
        problem: &'static str,
    },

    /// Two of the indexes searched together hold the same docid (each index
    /// holds a docid once; shards must not share one), so a topic retrieved
    /// it twice. Found before any line of the run is written.
    #[error(
        "topic {qid:?} retrieved docid {docid:?} twice: two of the indexes searched together \
         hold it; a docid must be in one index only (`sieve-index merge` of the indexes keeps \
         its first copy)"
    )]
    SharedDocid {
        /// The topic id.
        qid: String,
        /// The docid.
        docid: String,
    },

    /// The run writer was asked to write the same topic twice.
    #[error("run writer: topic {qid:?} written twice")]
    TopicWrittenTwice {
        /// The topic id.
        qid: String,
    },

    /// A judgment grade is above what gdeval accepts (`$MAX_JUDGMENT = 4`).
    #[error(
        "qrels: topic {qid:?} document {docno:?} has grade {rel}, above gdeval's maximum {max}; \
         nDCG/ERR as gdeval defines them are undefined"
    )]
    GradeAboveMax {
        /// The topic id.
        qid: String,
        /// The document id.
        docno: String,
        /// The grade found.
        rel: i64,
        /// The maximum allowed.
        max: i64,
    },

    /// A qrels file without a single judgment: nothing to evaluate against.
    #[error(
        "{}: the qrels file is empty (no `qid iter docno rel` line): nothing to evaluate against",
        path.display()
    )]
    EmptyQrels {
        /// The qrels file (or what stands for it, e.g. a DataFrame).
        path: PathBuf,
    },

    /// A run file without a single line: nothing to evaluate.
    #[error(
        "{}: the run file is empty (no `qid Q0 docno rank score tag` line): nothing to evaluate",
        path.display()
    )]
    EmptyRun {
        /// The run file (or what stands for it, e.g. a DataFrame).
        path: PathBuf,
    },

    /// A run given to fusion has no line: nothing to fuse.
    #[error(
        "{}: the run file is empty (no `qid Q0 docno rank score tag` line): nothing to fuse",
        path.display()
    )]
    EmptyFusionRun {
        /// The run file.
        path: PathBuf,
    },

    /// A run given to fusion retrieves a document twice for one topic
    /// (Anserini would add both copies' scores into the fused score).
    #[error(
        "{}: topic {qid:?} retrieves document {docid:?} twice: lines {first_line} and {line} \
         (fusion refuses a run with duplicates; Anserini would add both copies' scores)",
        path.display()
    )]
    FusionDuplicate {
        /// The run file.
        path: PathBuf,
        /// The topic id.
        qid: String,
        /// The document id.
        docid: String,
        /// 1-based line of the first occurrence.
        first_line: usize,
        /// 1-based line of the second occurrence.
        line: usize,
    },

    /// Fusion computed a score that is not finite (a float overflow in
    /// scaling, summing or min-max normalising very large scores).
    #[error("fusion: topic {qid:?} document {docid:?}: {stage} gives {value}, not a finite score")]
    FusionNotFinite {
        /// Which step overflowed (`min-max normalisation of run 2`, ...).
        stage: String,
        /// The topic id.
        qid: String,
        /// The document id.
        docid: String,
        /// The value computed.
        value: f32,
    },

    /// Evaluating the run `path` failed; `inner` says why.
    #[error("evaluating {}", path.display())]
    Evaluating {
        /// The run file.
        path: PathBuf,
        /// What went wrong.
        #[source]
        inner: Box<Error>,
    },

    /// No topic of a topic file has judgements in the qrels.
    #[error(
        "none of the topic file's {topics} topics has judgements in the qrels: nothing to evaluate"
    )]
    NoJudgedTopics {
        /// Topics in the topic file.
        topics: usize,
    },

    /// The run and the qrels have no topic in common (trec_eval: "No queries
    /// with both results and relevance info").
    #[error("no topic of run {run:?} is in the qrels")]
    NoCommonTopics {
        /// The run's name (its file name or tag).
        run: String,
    },

    /// A BM25 statistics file cannot be read as one (bad JSON, other format
    /// or version).
    #[error("statistics file {path}: {detail}")]
    StatsFile {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        detail: String,
    },

    /// A BM25 statistics file does not fit the search or the other files it
    /// is summed with (other analyser, field, topics or terms).
    #[error("statistics file {path}: {key} is {found:?}, expected {expected}")]
    StatsMismatch {
        /// The file.
        path: PathBuf,
        /// The header field or entry that differs.
        key: &'static str,
        /// What was expected (and where that comes from).
        expected: String,
        /// What the file has.
        found: String,
    },

    /// A file of the staged feedback protocol (feedback vectors, weighted
    /// queries, a first-stage run read for feedback) cannot be read as
    /// one: other format or version, a malformed or missing line.
    #[error("{path}: line {line}: {detail}")]
    FeedbackFile {
        /// The file.
        path: PathBuf,
        /// 1-based line number (the header is line 1).
        line: usize,
        /// What is wrong there.
        detail: String,
    },

    /// A file of the staged feedback protocol does not fit the search or
    /// the other files it is read with (other analyser, fields, topics,
    /// first-stage run or feedback setting).
    #[error("{path}: {key} is {found:?}, expected {expected}")]
    FeedbackMismatch {
        /// The file.
        path: PathBuf,
        /// The header field or entry that differs.
        key: &'static str,
        /// What was expected (and where that comes from).
        expected: String,
        /// What the file has.
        found: String,
    },

    /// A shard run to merge has a topic that the topic file lacks.
    #[error("merge: topic {qid:?} of a shard run is not in the topic file")]
    MergeUnknownTopic {
        /// The topic id.
        qid: String,
    },

    /// Two shard runs retrieve the same document for one topic (the shards
    /// overlap), and both copies are among the merged hits.
    #[error(
        "merge: topic {qid:?} retrieves document {docid:?} from {} and from {}; \
         shards must not share documents",
        first.display(),
        second.display()
    )]
    MergeDuplicate {
        /// The topic id.
        qid: String,
        /// The document id.
        docid: String,
        /// The first run retrieving it.
        first: PathBuf,
        /// The other run retrieving it.
        second: PathBuf,
    },

    /// A measure name could not be parsed.
    #[error("unknown measure {name:?}; known: {known}")]
    UnknownMeasure {
        /// The name given.
        name: String,
        /// The accepted names.
        known: String,
    },
}

/// The message of [`Error::UnknownTopicFormat`]: a blank input (`line` 0)
/// is said to be empty rather than in an unknown format.
fn unknown_format_message(tried: &str, line: usize, found: &str) -> String {
    if line == 0 {
        format!("no topics: the topic file is empty or blank (formats read: {tried})")
    } else {
        format!("unknown topic format (tried {tried}); first non-blank line {line}: {found:?}")
    }
}
