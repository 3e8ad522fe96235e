//! The search bench's synthetic collection, shared by the
//! `search` bench (which indexes it) and the `synth_export` example (which
//! writes it as JSONL for the peers).
//!
//! No real web collection big enough to time is public here, so the bench
//! makes one: documents of words drawn from a Zipf(1) law over the
//! vocabulary of real text (the CACM collection and the WT10g sample from
//! the shared data, else the committed CACM copy), with lengths 50–1,175
//! words (mean 425, before the analyser drops stopwords). Every document
//! gets a MADE-UP spam percentile, uniform over 0–99, from the same seeded
//! generator. Document `i` is `SYN-{i:09}`; the collection is the same on
//! every machine with the same shared data, and its first `n` documents do
//! not depend on how many are made.
//!
//! Those words are independent of each other and of the document: no order
//! of such documents puts similar ones together, so document reordering
//! has nothing to find in them. `SIEVE_BENCH_CORPUS=topical` makes a
//! second collection that has something to find, a MADE-UP model of
//! topical text: each document is about one of [`TOPICS`] topics (uniform,
//! drawn per document, so input order has no locality), and each of its
//! words is, with probability [`TOPIC_SHARE`], drawn from its topic's
//! [`TOPIC_WORDS`] words (a Zipf(1) law over a fixed pseudo-random choice
//! among all but the 50 commonest words), else from the Zipf(1) law over
//! the whole vocabulary as above. Same lengths and spam percentiles; kept
//! apart under `search-topical-N` ([`bench_dir`]).

use sieve_analysis::EnglishAnalyzer;
use sieve_searcher::topics::{TopicField, read_topics};
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// SplitMix64: a small deterministic generator (no dependency, same corpus
/// on every machine).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The repository's root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Lower-case alphabetic words of real text, most frequent first.
pub fn vocabulary() -> Vec<String> {
    let mut texts: Vec<Vec<u8>> = Vec::new();
    if let Some(d) = sieve_testdata::shared_file("", "search bench vocabulary (CACM, WT10g sample)")
    {
        for p in [
            "cacm/cacm.derived.trec",
            "trecweb-wt10g/wt10g-sample-B01",
            "trecweb-wt10g/wt10g-sample-B02",
            "trecweb-wt10g/wt10g-sample-B03",
        ] {
            if let Ok(b) = std::fs::read(d.join(p)) {
                texts.push(b);
            }
        }
    }
    if texts.is_empty() {
        let mut b = Vec::new();
        flate2::read::GzDecoder::new(
            File::open(repo().join("tests/data/cacm/cacm.trec.gz")).expect("committed CACM"),
        )
        .read_to_end(&mut b)
        .expect("gunzip CACM");
        texts.push(b);
    }
    let mut freq: std::collections::HashMap<String, u64> = std::collections::HashMap::new();
    for t in &texts {
        let mut in_tag = false;
        let mut word = String::new();
        for &c in t {
            match c {
                b'<' => in_tag = true,
                b'>' => in_tag = false,
                _ => {}
            }
            if !in_tag && c.is_ascii_alphabetic() {
                word.push(c.to_ascii_lowercase() as char);
            } else {
                if (2..=20).contains(&word.len()) {
                    *freq.entry(std::mem::take(&mut word)).or_default() += 1;
                }
                word.clear();
            }
        }
    }
    let mut v: Vec<(String, u64)> = freq.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v.into_iter().map(|(w, _)| w).collect()
}

/// One synthetic document.
pub struct SynDoc {
    /// `SYN-{i:09}`.
    pub docid: String,
    /// Words separated by single spaces.
    pub text: String,
    /// The MADE-UP spam percentile, 0–99.
    pub spam: u8,
}

/// Topics of the topical collection.
pub const TOPICS: usize = 1000;
/// Words of each topic.
pub const TOPIC_WORDS: usize = 300;
/// Share of a topical document's words drawn from its topic.
pub const TOPIC_SHARE: f64 = 0.3;

/// Which collection `SIEVE_BENCH_CORPUS` asks for: `true` for `topical`,
/// `false` for the default (`zipf`); anything else is refused.
pub fn topical() -> bool {
    match std::env::var("SIEVE_BENCH_CORPUS").as_deref() {
        Err(_) | Ok("") | Ok("zipf") => false,
        Ok("topical") => true,
        Ok(other) => panic!("SIEVE_BENCH_CORPUS={other}: expected zipf or topical"),
    }
}

/// The topics' words (vocabulary ranks) and the Zipf(1) law over them.
struct Topics {
    words: Vec<Vec<u32>>,
    cum: Vec<f64>,
    total: f64,
}

impl Topics {
    fn new(vocab: usize) -> Topics {
        let mut rng = Rng(7);
        let span = vocab.saturating_sub(50).max(1) as u64;
        let words = (0..TOPICS)
            .map(|_| {
                (0..TOPIC_WORDS)
                    .map(|_| (50 + rng.next() % span).min(vocab as u64 - 1) as u32)
                    .collect()
            })
            .collect();
        let (cum, total) = zipf(TOPIC_WORDS);
        Topics { words, cum, total }
    }
}

/// Zipf(1) cumulative weights over `n` ranks, and their total.
fn zipf(n: usize) -> (Vec<f64>, f64) {
    let mut cum = Vec::with_capacity(n);
    let mut s = 0.0;
    for r in 1..=n {
        s += 1.0 / r as f64;
        cum.push(s);
    }
    (cum, s)
}

/// The rank drawn by `u` in [0, 1) from cumulative weights `cum`.
fn draw(cum: &[f64], total: f64, u: f64) -> usize {
    cum.partition_point(|&c| c < u * total).min(cum.len() - 1)
}

/// The documents `0..docs`, in order.
pub struct Corpus {
    vocab: Vec<String>,
    cum: Vec<f64>,
    total: f64,
    topics: Option<Topics>,
    rng: Rng,
    next: usize,
    docs: usize,
}

impl Corpus {
    /// The first `docs` documents of the collection [`topical`] names.
    pub fn new(docs: usize) -> Corpus {
        let vocab = vocabulary();
        let (cum, total) = zipf(vocab.len());
        Corpus {
            topics: topical().then(|| Topics::new(vocab.len())),
            vocab,
            cum,
            total,
            rng: Rng(42),
            next: 0,
            docs,
        }
    }
}

impl Iterator for Corpus {
    type Item = SynDoc;

    fn next(&mut self) -> Option<SynDoc> {
        if self.next >= self.docs {
            return None;
        }
        let docid = format!("SYN-{:09}", self.next);
        self.next += 1;
        let u = self.rng.unit();
        let len = 50 + (u * u * 1125.0) as usize; // 50..=1175 words, mean 50 + 1125/3 = 425
        let mut text = String::with_capacity(len * 8);
        let topic = self
            .topics
            .as_ref()
            .map(|t| &t.words[(self.rng.next() % TOPICS as u64) as usize]);
        for i in 0..len {
            let r = match (topic, &self.topics) {
                (Some(words), Some(t)) if self.rng.unit() < TOPIC_SHARE => {
                    words[draw(&t.cum, t.total, self.rng.unit())] as usize
                }
                _ => draw(&self.cum, self.total, self.rng.unit()),
            };
            if i > 0 {
                text.push(' ');
            }
            text.push_str(&self.vocab[r]);
        }
        let spam = (self.rng.next() % 100) as u8;
        Some(SynDoc { docid, text, spam })
    }
}

/// Writes `d` as the TREC record the search bench indexes (the raw words,
/// unanalysed), so a peer given these bytes indexes exactly what sieve did.
pub fn write_trec_doc(w: &mut impl std::io::Write, d: &SynDoc) -> std::io::Result<()> {
    write!(
        w,
        "<DOC>\n<DOCNO>{}</DOCNO>\n<TEXT>\n{} \n</TEXT>\n</DOC>\n",
        d.docid, d.text
    )
}

/// The search bench's topic files (in `topics/`), in its order.
pub const TOPIC_FILES: [&str; 5] = [
    "topics.web.1-50.txt",
    "topics.web.51-100.txt",
    "topics.web.101-150.txt",
    "topics.web.151-200.txt",
    "topics.robust04.txt",
];

/// The analysed title of each topic of [`TOPIC_FILES`] that has terms, in
/// order: the search bench's queries (numbered from 0 by the bench, its
/// probe and `synth_export`).
pub fn topic_terms(analyzer: &EnglishAnalyzer) -> Vec<Vec<String>> {
    let mut queries = Vec::new();
    for f in TOPIC_FILES {
        let (_, topics) = read_topics(&repo().join("topics").join(f)).expect("topics");
        for t in topics {
            let terms = analyzer.terms(&t.query(TopicField::Title));
            if !terms.is_empty() {
                queries.push(terms);
            }
        }
    }
    queries
}

/// Where the bench keeps its synthetic indexes: `$SIEVE_BENCH_DATA`
/// (default `target/bench-data` in the checkout), so a big index can live
/// outside the checkout and survive `cargo clean`.
pub fn data_dir() -> PathBuf {
    std::env::var_os("SIEVE_BENCH_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target/bench-data"))
}

/// The directory of the `docs`-document bench index and its files
/// (`search-N`, or `search-topical-N` for the topical collection).
pub fn bench_dir(docs: usize) -> PathBuf {
    let kind = if topical() { "topical-" } else { "" };
    data_dir().join(format!("search-{kind}{docs}"))
}

/// The index inside [`bench_dir`].
pub fn index_dir(docs: usize) -> PathBuf {
    bench_dir(docs).join("index")
}

/// True when `path` exists (for messages).
pub fn exists(path: &Path) -> bool {
    path.exists()
}
