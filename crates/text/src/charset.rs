//! Charset detection and decoding of HTTP bodies to UTF-8 text.
//!
//! [`decode`] turns the raw bytes of one HTTP body into a `String`, and says
//! which evidence decided the encoding ([`CharsetSource`]). It never fails:
//! malformed input is cleaned (UTF-8) or replaced with U+FFFD (legacy
//! encodings), and the damage is reported in [`Decoded`].
//!
//! # Order of evidence ([`CharsetMode::Auto`])
//!
//! 1. **Byte order mark** ([`CharsetSource::Bom`]): UTF-8, UTF-16LE or
//!    UTF-16BE BOM at byte 0. As in the WHATWG encoding-sniffing algorithm
//!    (HTML Standard, "determining the character encoding", step 1) a BOM
//!    beats the HTTP header: it describes the bytes themselves, and a UTF-16
//!    body decoded as a declared single-byte encoding would be garbage.
//! 2. **HTTP header** ([`CharsetSource::HttpHeader`]): the `charset=`
//!    parameter of `Content-Type`, as handed over by the WARC reader.
//! 3. **`<meta>`** ([`CharsetSource::Meta`]): the WHATWG prescan of the
//!    first 1024 bytes: `<meta charset=...>` or
//!    `<meta http-equiv="content-type" content="...charset=...">`, any
//!    attribute order, quotes, case; comments and other tags (including `>`
//!    inside quoted attribute values) are skipped. A declaration that is not
//!    complete within the first 1024 bytes is ignored. A UTF-16 label in a
//!    meta tag means UTF-8 and `x-user-defined` means windows-1252 (WHATWG).
//! 4. **XML declaration** ([`CharsetSource::XmlDecl`]): `<?xml ...
//!    encoding="..."?>` at byte 0. The HTML prescan ignores it, but XML 1.0
//!    (section 4.3.3, appendix F) makes it authoritative for XML documents,
//!    and crawls hold XHTML, RSS and Atom served without a header charset
//!    (most of the chardet test corpus is RSS/Atom). UTF-16 labels mean UTF-8
//!    here too (the bytes were read as ASCII-compatible to find the
//!    declaration).
//! 5. Nothing declared:
//!    * empty or pure ASCII without ESC (0x1B): [`CharsetSource::Default`]
//!      (UTF-8); ASCII with ESC goes to the detector (ISO-2022-JP is 7-bit);
//!    * valid UTF-8: [`CharsetSource::ValidUtf8`], no detector runs;
//!    * otherwise [`CharsetSource::Detector`]: the seven malformed-UTF-8
//!      counts of the raw bytes are kept (the spam signal of Crane, Trotman
//!      and O'Keefe; taken by running the cleaner over the raw body after it
//!      has been decoded), and `chardetng` guesses, with the URL's top-level
//!      domain as a hint.
//!
//! Labels are resolved with [`Encoding::for_label`] (WHATWG labels:
//! `iso-8859-1` and `ascii` are windows-1252, `gb2312` is GBK; intended).
//! A label that does not resolve is ignored (evidence falls through to the
//! next source) and [`Decoded::unknown_label`] is set. Labels that resolve
//! to the `replacement` encoding (`iso-2022-kr`, `hz-gb-2312`, ...) are
//! honoured as encoding_rs does: the body decodes to a single U+FFFD.
//!
//! # Decoding
//!
//! Every decision for UTF-8 (declared, BOM, `ValidUtf8`, `Default`,
//! detected UTF-8, and [`CharsetMode::ForceUtf8`]) runs the in-place cleaner
//! [`sieve_filters::utf8::clean_in_place_with`] over the body (without its
//! BOM) and keeps its seven counts in [`Decoded::utf8_counts`]; no copy is
//! made. A legacy encoding decodes with encoding_rs (malformed sequences
//! become U+FFFD and set [`Decoded::had_replacements`]); its counts stay zero
//! unless the detector decided (then they are the raw bytes' counts).

use encoding_rs::{Encoding, UTF_8, UTF_16BE, UTF_16LE, WINDOWS_1252, X_USER_DEFINED};
use sieve_filters::utf8::{self, Counting, Utf8Counts};

use prescan::{prescan_meta, xml_declaration};

mod prescan;

/// Which evidence decided the encoding of a body.
///
/// [`code`](Self::code) is stored in an index fast field: codes are stable
/// and are never renumbered; new variants get new codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CharsetSource {
    /// The HTTP `Content-Type` `charset=` parameter (code 1).
    HttpHeader,
    /// A byte order mark at byte 0 (code 2).
    Bom,
    /// A `<meta>` declaration found by the WHATWG prescan (code 3).
    Meta,
    /// Nothing declared; `chardetng` guessed (code 4).
    Detector,
    /// Nothing declared, and the body is valid UTF-8 with non-ASCII (code 5).
    ValidUtf8,
    /// [`CharsetMode::ForceUtf8`]: the body was treated as UTF-8 whatever it
    /// declared, as ATIRE does (code 6).
    Forced,
    /// Nothing declared and nothing to go on: empty or pure ASCII, UTF-8
    /// (code 7).
    Default,
    /// An XML declaration `<?xml ... encoding="..."?>` at byte 0 (code 8).
    XmlDecl,
    /// The input format fixes the encoding: JSON text is UTF-8 (RFC 8259,
    /// section 8.1), so a JSON line's fields are cleaned as UTF-8 whatever
    /// bytes they hold (code 9; see [`decode_utf8`]).
    Format,
}

impl CharsetSource {
    /// Every variant, in code order.
    pub const ALL: [CharsetSource; 9] = [
        CharsetSource::HttpHeader,
        CharsetSource::Bom,
        CharsetSource::Meta,
        CharsetSource::Detector,
        CharsetSource::ValidUtf8,
        CharsetSource::Forced,
        CharsetSource::Default,
        CharsetSource::XmlDecl,
        CharsetSource::Format,
    ];

    /// The stable numeric code (1..=9) stored in the index. Never
    /// renumbered; 0 is never used, so a fast field's default of 0 means
    /// "not recorded".
    pub fn code(self) -> u64 {
        match self {
            CharsetSource::HttpHeader => 1,
            CharsetSource::Bom => 2,
            CharsetSource::Meta => 3,
            CharsetSource::Detector => 4,
            CharsetSource::ValidUtf8 => 5,
            CharsetSource::Forced => 6,
            CharsetSource::Default => 7,
            CharsetSource::XmlDecl => 8,
            CharsetSource::Format => 9,
        }
    }

    /// The variant whose [`code`](Self::code) is `code`, or `None`.
    pub fn from_code(code: u64) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.code() == code)
    }

    /// A stable snake_case name for statistics (`"http_header"`, `"bom"`,
    /// `"meta"`, `"detector"`, `"valid_utf8"`, `"forced"`, `"default"`,
    /// `"xml_decl"`, `"format"`).
    pub fn key(self) -> &'static str {
        match self {
            CharsetSource::HttpHeader => "http_header",
            CharsetSource::Bom => "bom",
            CharsetSource::Meta => "meta",
            CharsetSource::Detector => "detector",
            CharsetSource::ValidUtf8 => "valid_utf8",
            CharsetSource::Forced => "forced",
            CharsetSource::Default => "default",
            CharsetSource::XmlDecl => "xml_decl",
            CharsetSource::Format => "format",
        }
    }
}

/// How [`decode`] chooses the encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CharsetMode {
    /// Use the evidence in the order given in the [module docs](self).
    #[default]
    Auto,
    /// ATIRE's treatment (`--charset utf8`): every body is UTF-8 whatever it
    /// declares; it is cleaned and counted. A UTF-8 BOM is kept (as U+FEFF).
    ForceUtf8,
}

/// The result of [`decode`].
#[derive(Debug, Clone)]
pub struct Decoded {
    /// The body as text (without any BOM that decided the encoding).
    pub text: String,
    /// The encoding the body was decoded with.
    pub encoding: &'static Encoding,
    /// Which evidence decided `encoding`.
    pub source: CharsetSource,
    /// Two of the declarations present (HTTP header, BOM, meta, XML
    /// declaration) resolve to different encodings. Meta and XML labels are
    /// compared as resolved by `for_label`, before the UTF-16-means-UTF-8
    /// rule.
    pub disagree: bool,
    /// Malformed-UTF-8 counts of the raw body (by the cleaner
    /// [`utf8::clean_in_place_with`]): when the body was treated as UTF-8,
    /// and when the detector decided a legacy encoding; zero when a declared
    /// legacy encoding (HTTP, BOM, meta, XML) decided.
    pub utf8_counts: Utf8Counts,
    /// What [`Counting::Atire`] adds to `utf8_counts.unexpected_continuation`
    /// for the same bytes (the leftover bytes of over-long forms), measured
    /// in the same pass of the cleaner; zero when `utf8_counts` is zero by
    /// construction (a declared legacy encoding decided).
    pub atire_extra: u64,
    /// A legacy (non-UTF-8) decode met malformed input and produced U+FFFD.
    pub had_replacements: bool,
    /// A declared label (HTTP, meta or XML) was not a WHATWG label and was
    /// ignored.
    pub unknown_label: bool,
}

/// How many leading bytes the `<meta>` prescan and the XML-declaration
/// parser look at (WHATWG: 1024).
pub const PRESCAN_BYTES: usize = 1024;

/// Decodes one HTTP body to text. `http_charset` is the value of the
/// `Content-Type` `charset=` parameter (surrounding whitespace and quotes
/// are ignored), `url` the record's target URI (only its top-level domain is
/// used, as a detector hint). See the [module docs](self) for the exact
/// order of evidence. Takes the body by value so that UTF-8 bodies are
/// cleaned in place and become the `String` without a copy. Never panics;
/// time is linear in `body.len()`.
pub fn decode(
    mut body: Vec<u8>,
    http_charset: Option<&str>,
    url: Option<&str>,
    mode: CharsetMode,
    counting: Counting,
) -> Decoded {
    if mode == CharsetMode::ForceUtf8 {
        return Verdict::plain(UTF_8, CharsetSource::Forced).utf8(body, 0, counting);
    }
    let declared = Declared::read(&body, http_charset);
    if let Some((encoding, source, skip)) = declared.decision() {
        let verdict = declared.verdict(encoding, source);
        if encoding == UTF_8 {
            return verdict.utf8(body, skip, counting);
        }
        let (text, had_replacements) = decode_legacy(encoding, &body[skip..]);
        return verdict.decoded(text, had_replacements, (Utf8Counts::default(), 0));
    }

    // Nothing declared. ASCII with ESC bytes may be ISO-2022-JP: detector.
    let ascii = body.is_ascii();
    if (ascii && memchr::memchr(0x1B, &body).is_none())
        || (!ascii && std::str::from_utf8(&body).is_ok())
    {
        let source = if ascii {
            CharsetSource::Default
        } else {
            CharsetSource::ValidUtf8
        };
        return declared.verdict(UTF_8, source).utf8(body, 0, counting);
    }
    let encoding = detect(&body, url);
    let verdict = declared.verdict(encoding, CharsetSource::Detector);
    if encoding == UTF_8 {
        return verdict.utf8(body, 0, counting);
    }
    let (text, had_replacements) = decode_legacy(encoding, &body);
    // The raw bytes' counts (the paper's spam signal): the cleaner runs over
    // the body, which is no longer needed, so no copy is made.
    let counts = clean_counts(&mut body, counting);
    verdict.decoded(text, had_replacements, counts)
}

/// The declarations of a body's encoding, each resolved (`None`: absent,
/// or a label that does not resolve).
struct Declared {
    /// A byte order mark: its encoding and length.
    bom: Option<(&'static Encoding, usize)>,
    /// The HTTP header's `charset=`.
    http: Option<&'static Encoding>,
    /// The first effective `<meta>` declaration.
    meta: Option<&'static Encoding>,
    /// The XML declaration's `encoding`.
    xml: Option<&'static Encoding>,
    /// A declared label was not a WHATWG label.
    unknown_label: bool,
}

impl Declared {
    /// Reads the declarations of `body` and of its HTTP `charset=`
    /// parameter (whitespace and quotes around it ignored).
    fn read(body: &[u8], http_charset: Option<&str>) -> Self {
        let mut unknown_label = false;
        let resolve = |label: &[u8], unknown: &mut bool| {
            let r = Encoding::for_label(label);
            if r.is_none() {
                *unknown = true;
            }
            r
        };
        let bom = Encoding::for_bom(body);
        let http = http_charset
            .map(|l| l.trim().trim_matches(|c| c == '"' || c == '\''))
            .filter(|l| !l.is_empty())
            .and_then(|l| resolve(l.as_bytes(), &mut unknown_label));
        let head = &body[..body.len().min(PRESCAN_BYTES)];
        let meta = prescan_meta(head, &mut unknown_label);
        let xml = xml_declaration(head).and_then(|l| resolve(&l, &mut unknown_label));
        Declared {
            bom,
            http,
            meta,
            xml,
            unknown_label,
        }
    }

    /// Two of the declarations present resolve to different encodings.
    fn disagree(&self) -> bool {
        let declared: Vec<&'static Encoding> =
            [self.bom.map(|(e, _)| e), self.http, self.meta, self.xml]
                .into_iter()
                .flatten()
                .collect();
        declared.windows(2).any(|w| w[0] != w[1])
    }

    /// The declaration that decides, in the order of evidence: the
    /// encoding, its source, and the length of the BOM to drop.
    fn decision(&self) -> Option<(&'static Encoding, CharsetSource, usize)> {
        let in_document = |e: &'static Encoding| {
            if e == UTF_16LE || e == UTF_16BE {
                UTF_8
            } else if e == X_USER_DEFINED {
                WINDOWS_1252
            } else {
                e
            }
        };
        if let Some((e, len)) = self.bom {
            Some((e, CharsetSource::Bom, len))
        } else if let Some(e) = self.http {
            Some((e, CharsetSource::HttpHeader, 0))
        } else if let Some(e) = self.meta {
            Some((in_document(e), CharsetSource::Meta, 0))
        } else {
            self.xml
                .map(|e| (in_document(e), CharsetSource::XmlDecl, 0))
        }
    }

    /// The verdict `encoding` from `source`, with what the declarations
    /// add to it.
    fn verdict(&self, encoding: &'static Encoding, source: CharsetSource) -> Verdict {
        Verdict {
            encoding,
            source,
            disagree: self.disagree(),
            unknown_label: self.unknown_label,
        }
    }
}

/// What decided a body's encoding, before it is decoded.
struct Verdict {
    /// The encoding to decode with.
    encoding: &'static Encoding,
    /// The evidence that decided it.
    source: CharsetSource,
    /// See [`Decoded::disagree`].
    disagree: bool,
    /// See [`Decoded::unknown_label`].
    unknown_label: bool,
}

impl Verdict {
    /// `encoding` from `source`, with no declaration in conflict or unknown.
    fn plain(encoding: &'static Encoding, source: CharsetSource) -> Self {
        Verdict {
            encoding,
            source,
            disagree: false,
            unknown_label: false,
        }
    }

    /// The body cleaned as UTF-8 in place, its first `skip` bytes (a BOM)
    /// dropped.
    fn utf8(self, body: Vec<u8>, skip: usize, counting: Counting) -> Decoded {
        let (text, utf8_counts, atire_extra) = clean_utf8(body, skip, counting);
        self.decoded(text, false, (utf8_counts, atire_extra))
    }

    /// The [`Decoded`] of `text`, with the raw bytes' malformed-UTF-8
    /// `counts` and ATIRE extra.
    fn decoded(
        self,
        text: String,
        had_replacements: bool,
        (utf8_counts, atire_extra): (Utf8Counts, u64),
    ) -> Decoded {
        Decoded {
            text,
            encoding: self.encoding,
            source: self.source,
            disagree: self.disagree,
            utf8_counts,
            atire_extra,
            had_replacements,
            unknown_label: self.unknown_label,
        }
    }
}

/// Runs `chardetng` over `body` with the top-level domain of `url` as the
/// hint (UTF-8 allowed as a guess).
fn detect(body: &[u8], url: Option<&str>) -> &'static Encoding {
    let mut det = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Allow);
    det.feed(body, true);
    let tld = url.and_then(tld_of);
    det.guess(tld.as_deref(), chardetng::Utf8Detection::Allow)
}

/// The rightmost DNS label of the host of `url`, lower-cased, if it is a
/// plausible ASCII label (what `chardetng` requires; anything else, e.g. an
/// IP address or a non-ASCII host, gives `None`).
pub(crate) fn tld_of(url: &str) -> Option<Vec<u8>> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority.rsplit('@').next()?;
    let host = if host.starts_with('[') {
        return None;
    } else {
        host.split(':').next()?
    };
    let host = host.trim_end_matches('.');
    let label = host.rsplit('.').next()?;
    if label.is_empty()
        || label.len() > 63
        || !label
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        || label.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    Some(label.to_ascii_lowercase().into_bytes())
}

/// Decodes a body whose format fixes the encoding as UTF-8 (a JSON line's
/// fields): the cleaner repairs and counts it, as [`decode`] does a UTF-8
/// body, with [`CharsetSource::Format`] as the deciding source (or
/// [`CharsetSource::Forced`] under [`CharsetMode::ForceUtf8`], as for every
/// body).
pub fn decode_utf8(body: Vec<u8>, mode: CharsetMode, counting: Counting) -> Decoded {
    let source = match mode {
        CharsetMode::ForceUtf8 => CharsetSource::Forced,
        CharsetMode::Auto => CharsetSource::Format,
    };
    Verdict::plain(UTF_8, source).utf8(body, 0, counting)
}

/// Cleans `body[skip..]` in place, drops the first `skip` bytes (a BOM) and
/// returns the text and the cleaner's counts.
fn clean_utf8(mut body: Vec<u8>, skip: usize, counting: Counting) -> (String, Utf8Counts, u64) {
    let (counts, extra) = clean_counts(&mut body[skip..], counting);
    body.drain(..skip);
    // The cleaner guarantees valid UTF-8; the lossy fallback only guards
    // against a broken cleaner (it never panics and never copies otherwise).
    let text = String::from_utf8(body)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    (text, counts, extra)
}

/// Cleans `bytes` in place: the counts under `counting` and the ATIRE extra
/// (one pass of the cleaner).
fn clean_counts(bytes: &mut [u8], counting: Counting) -> (Utf8Counts, u64) {
    let (mut counts, extra) = utf8::clean_in_place_atire_extra(bytes);
    if counting == Counting::Atire {
        counts.unexpected_continuation += extra;
    }
    (counts, extra)
}

/// Decodes `bytes` with a non-UTF-8 encoding, without BOM sniffing.
fn decode_legacy(encoding: &'static Encoding, bytes: &[u8]) -> (String, bool) {
    let (text, had_errors) = encoding.decode_without_bom_handling(bytes);
    (text.into_owned(), had_errors)
}

#[cfg(test)]
pub(crate) mod tests;
