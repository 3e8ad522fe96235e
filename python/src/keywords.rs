//! The keywords of `sieve.build`: one row per `sieve-index build` flag.
//! It is the one list the extension takes its keywords from (and names in
//! the error for any other), and the one `sieve-index`'s unit test
//! `every_build_flag_is_a_python_keyword` compares with the command line's
//! flags, so a new flag without a keyword fails the tests. It uses nothing
//! but `std`, so that the command line's tests can include it as a module.

/// One keyword of `sieve.build`.
#[derive(Debug, Clone, Copy)]
pub struct Keyword {
    /// The keyword.
    pub name: &'static str,
    /// The `sieve-index build` flag it stands for.
    pub flag: &'static str,
    /// How the value relates to the flag, when not plainly.
    pub note: &'static str,
}

const fn kw(name: &'static str, flag: &'static str) -> Keyword {
    Keyword {
        name,
        flag,
        note: "",
    }
}

/// Every keyword `sieve.build` takes, in `sieve-index build --help` order.
pub const BUILD_KEYWORDS: &[Keyword] = &[
    kw("charset", "--charset"),
    kw("text", "--text"),
    kw("no_near_duplicates", "--no-near-duplicates"),
    kw("positions", "--positions"),
    kw("docvectors", "--docvectors"),
    kw("max_record_bytes", "--max-record-bytes"),
    kw("max_decompression_ratio", "--max-decompression-ratio"),
    kw("max_html_depth", "--max-html-depth"),
    kw("max_text_bytes", "--max-text-bytes"),
    kw("max_doc_ms", "--max-doc-ms"),
    kw("doc_timeout", "--doc-timeout"),
    kw("quarantine", "--quarantine"),
    Keyword {
        note: "stem=False is --no-stem",
        ..kw("stem", "--no-stem")
    },
    Keyword {
        note: "stopwords=False is --keep-stopwords",
        ..kw("stopwords", "--keep-stopwords")
    },
    kw("filter", "--filter"),
    kw("spam", "--spam"),
    kw("writer_mb", "--writer-mb"),
    kw("commit_every_mb", "--commit-every-mb"),
    kw("docid_header", "--docid-header"),
    kw("id_field", "--id-field"),
    kw("title_field", "--title-field"),
    kw("text_field", "--text-field"),
    kw("url_field", "--url-field"),
    kw("language_field", "--language-field"),
    kw("tsv_columns", "--tsv-columns"),
    kw("threads", "--threads"),
    kw("progress_every", "--progress-every"),
    kw("resume", "--resume"),
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
