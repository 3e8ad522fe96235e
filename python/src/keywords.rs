//! The keywords of `sieve.build`: one row per `sieve-index build` flag.
//! It is the one list the extension takes its keywords from (and names in
//! the error for any other), and the one `sieve-index`'s unit test
//! `every_build_flag_is_a_python_keyword` compares with the command line's
//! flags, so a new flag without a keyword fails the tests. It uses nothing
//! but `std`, so that the command line's tests can include it as a module.

/// What a keyword's value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A non-negative integer.
    Int,
    /// An integer >= 1, or `None` for the default.
    OptInt,
    /// A number >= 0.
    Float,
    /// True or false.
    Bool,
    /// A string.
    Text,
    /// A string or a list of strings.
    Texts,
    /// A path, or `None`.
    Path,
    /// A path or a list of paths, or `None`.
    Paths,
}

/// One keyword of `sieve.build`.
#[derive(Debug, Clone, Copy)]
pub struct Keyword {
    /// The keyword.
    pub name: &'static str,
    /// The `sieve-index build` flag it stands for.
    pub flag: &'static str,
    /// Its value.
    pub kind: Kind,
    /// How the value relates to the flag, when not plainly.
    pub note: &'static str,
}

const fn kw(name: &'static str, flag: &'static str, kind: Kind) -> Keyword {
    Keyword {
        name,
        flag,
        kind,
        note: "",
    }
}

/// Every keyword `sieve.build` takes, in `sieve-index build --help` order.
pub const BUILD_KEYWORDS: &[Keyword] = &[
    kw("charset", "--charset", Kind::Text),
    kw("text", "--text", Kind::Text),
    kw("no_near_duplicates", "--no-near-duplicates", Kind::Bool),
    kw("max_record_bytes", "--max-record-bytes", Kind::Int),
    kw("max_decompression_ratio", "--max-decompression-ratio", Kind::Int),
    kw("max_html_depth", "--max-html-depth", Kind::Int),
    kw("max_text_bytes", "--max-text-bytes", Kind::Int),
    kw("max_doc_ms", "--max-doc-ms", Kind::Int),
    kw("doc_timeout", "--doc-timeout", Kind::Text),
    kw("quarantine", "--quarantine", Kind::Path),
    Keyword {
        note: "stem=False is --no-stem",
        ..kw("stem", "--no-stem", Kind::Bool)
    },
    Keyword {
        note: "stopwords=False is --keep-stopwords",
        ..kw("stopwords", "--keep-stopwords", Kind::Bool)
    },
    kw("filter", "--filter", Kind::Path),
    kw("spam", "--spam", Kind::Paths),
    kw("writer_mb", "--writer-mb", Kind::Int),
    kw("commit_every_mb", "--commit-every-mb", Kind::Int),
    kw("docid_header", "--docid-header", Kind::Text),
    kw("id_field", "--id-field", Kind::Texts),
    kw("title_field", "--title-field", Kind::Texts),
    kw("text_field", "--text-field", Kind::Texts),
    kw("url_field", "--url-field", Kind::Texts),
    kw("language_field", "--language-field", Kind::Texts),
    kw("tsv_columns", "--tsv-columns", Kind::Text),
    kw("threads", "--threads", Kind::OptInt),
    kw("progress_every", "--progress-every", Kind::Float),
    kw("resume", "--resume", Kind::Bool),
];

/// The `sieve-index build` flags that are not keywords, and why.
pub const NOT_KEYWORDS: &[(&str, &str)] = &[
    ("--input", "the inputs are sieve.build's first argument"),
    ("--index", "the index is sieve.build's second argument"),
    ("--json", "the statistics are the returned Index's stats"),
    ("--help", "Python's help(sieve.build)"),
];

/// The keyword named `name`, if `sieve.build` takes it.
pub fn keyword(name: &str) -> Option<&'static Keyword> {
    BUILD_KEYWORDS.iter().find(|k| k.name == name)
}

/// Every keyword, comma-separated (for the error naming an unknown one).
pub fn keyword_list() -> String {
    let names: Vec<&str> = BUILD_KEYWORDS.iter().map(|k| k.name).collect();
    names.join(", ")
}
