//! HTML to text: the title and the visible body text of a page.
//!
//! [`extract`] is a single forward pass over the input (memchr for `<` and
//! `&`), with no DOM, no recursion and no per-element allocation; time is
//! linear in the input and memory is bounded by the output caps. It never
//! fails and never panics: malformed HTML is read as browsers read it where
//! that matters for text.
//!
//! # Rules
//!
//! * **Title**: the text of the first `<title>` element (read as RCDATA:
//!   tags inside are text, entities are decoded), whitespace collapsed to
//!   single spaces and trimmed; it never contains a newline. The title is
//!   not part of the body. Later `<title>` elements (e.g. in SVG) are
//!   dropped.
//! * **Dropped**: the contents of `script`, `style`, `noscript` (read as
//!   browsers with scripting enabled do: raw text, not shown), `template`
//!   (its content is never rendered), `iframe`, `noembed`, `noframes` and
//!   `xmp` (raw text elements); comments `<!-- ... -->` (an unterminated
//!   comment runs to the end of the input, as in browsers; `<!-->` is an
//!   empty comment); `<![CDATA[ ... ]]>`; doctypes, `<!...>` and processing
//!   instructions `<?...>` (bogus comments, to the next `>`). Raw text ends
//!   at the first `</name` followed by whitespace, `/` or `>`, in any case,
//!   even inside a JavaScript string (browsers do the same). Attributes
//!   never become text (not even `alt` or `title`).
//! * **Head**: only the title is taken from `<head>`; everything else that
//!   appears there is either markup or a dropped element. Stray text in the
//!   head is kept, because browsers move it into the body.
//! * **Paragraphs**: the start and end tags of block elements (`address`,
//!   `article`, `aside`, `blockquote`, `body`, `caption`, `center`, `dd`,
//!   `details`, `dialog`, `dir`, `div`, `dl`, `dt`, `fieldset`,
//!   `figcaption`, `figure`, `footer`, `form`, `frameset`, `h1`-`h6`,
//!   `header`, `hgroup`, `hr`, `html`, `legend`, `li`, `listing`, `main`,
//!   `menu`, `nav`, `ol`, `p`, `pre`, `section`, `summary`, `table`,
//!   `tbody`, `tfoot`, `thead`, `tr`, `ul`) separate paragraphs: the body
//!   has exactly one blank line (`"\n\n"`) between paragraphs. `<br>`,
//!   `<td>`, `<th>` and `<option>` are line breaks (`"\n"`). `img`, `input`,
//!   `button`, `select`, `textarea` and `wbr` separate words with a space.
//!   Other (inline) elements join text as browsers do: `<b>foo</b>bar` is
//!   `foobar`.
//! * **Whitespace**: ASCII whitespace and U+00A0 (raw or `&nbsp;`) collapse
//!   to one space; the body has no leading or trailing whitespace and never
//!   contains `"\n\n\n"`. Inside `<pre>`/`<listing>`/`<textarea>`, a run of
//!   whitespace that contains a line break is one `"\n"` (so line structure,
//!   e.g. of CACM records, survives; blank lines collapse), other runs are
//!   one space.
//! * **Entities**: all 2,125 WHATWG named references, the 106 legacy names
//!   without `;` (longest prefix, `&copy2020` is `©2020`), decimal and hex
//!   numeric references with or without `;`; invalid code points become
//!   U+FFFD and 0x80-0x9F map through windows-1252, as the HTML5 tokenizer
//!   does. An `&` that starts no reference is literal.
//! * **Malformed input**: `<` not followed by a letter, `/`, `!` or `?` is
//!   text (`a < b`); `>` inside a quoted attribute value does not end the
//!   tag; a tag (or quoted value) still open at the end of the input is
//!   dropped, as browsers do; tag names are case-insensitive.
//!
//! # Main content and paragraphs
//!
//! [`extract_text`] with [`TextMode::Main`] ([`extract_main`]) keeps only
//! the running text of a page, dropping navigation, headers, footers, link
//! lists and widgets: the rules are in [`main_content`](extract_main)'s
//! module docs. Its body is always a subsequence of the paragraphs of
//! [`TextMode::All`], spelled the same. [`paragraphs`] splits a body into
//! its paragraphs.
//!
//! # Caps
//!
//! * [`HtmlOptions::max_text_bytes`]: the body (and, separately, the title)
//!   is cut at a UTF-8 character boundary at most this many bytes long and
//!   [`Extracted::text_truncated`] is set; the scan stops there.
//! * [`HtmlOptions::max_depth`]: the scanner keeps only a counter of open
//!   elements (non-void start tags minus end tags, never below zero). When it
//!   exceeds `max_depth`, [`Extracted::depth_capped`] is set and the counter
//!   stops growing; because nothing is built per level, depth never costs
//!   stack or quadratic time, and extraction goes on unchanged. Template
//!   nesting is counted with the same cap.
//! * A deadline ([`extract_until`]): the scan looks at the clock every
//!   [`DEADLINE_STEPS`] tags, references or text runs and stops when it has
//!   passed, setting [`Extracted::timed_out`]; the text so far is kept. This
//!   is the only cap whose result depends on the machine's speed.

mod entities;
mod main_content;
mod out;
mod scan;

use std::time::Instant;

use out::{LINE, Out, PARA, SPACE};
use scan::scan;

/// Scan steps (tags, references or text runs) between two looks at the
/// clock in [`extract_until`]: a step is at most a few microseconds of work
/// on ordinary HTML, and `Instant::now` costs tens of nanoseconds.
pub const DEADLINE_STEPS: u32 = 1024;

/// Limits for [`extract`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HtmlOptions {
    /// Nesting depth above which [`Extracted::depth_capped`] is set (default
    /// 256).
    pub max_depth: usize,
    /// Maximum length in bytes of the body text, and separately of the title
    /// (default 4 MiB).
    pub max_text_bytes: usize,
}

impl Default for HtmlOptions {
    fn default() -> Self {
        HtmlOptions {
            max_depth: 256,
            max_text_bytes: 4 << 20,
        }
    }
}

/// The text of one HTML page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Extracted {
    /// The first `<title>`, entities decoded, whitespace collapsed, no
    /// newline.
    pub title: String,
    /// The visible text, paragraphs separated by one blank line.
    pub body: String,
    /// The input nested deeper than [`HtmlOptions::max_depth`].
    pub depth_capped: bool,
    /// The body or the title hit [`HtmlOptions::max_text_bytes`] and was cut.
    pub text_truncated: bool,
    /// The deadline of [`extract_until`] passed: the scan stopped there.
    pub timed_out: bool,
}

/// Extracts the title and the visible body text of `html`. See the
/// [module docs](self) for the exact rules. Never panics; time linear in
/// `html.len()`; the outputs are at most `opts.max_text_bytes` each.
pub fn extract(html: &str, opts: &HtmlOptions) -> Extracted {
    extract_until(html, opts, None)
}

/// [`extract`], stopping early (with [`Extracted::timed_out`] set and the
/// text extracted so far) once `deadline` has passed. The clock is read
/// every [`DEADLINE_STEPS`] steps, so a deadline already past stops the
/// scan after at most that many steps.
pub fn extract_until(html: &str, opts: &HtmlOptions, deadline: Option<Instant>) -> Extracted {
    let mut body = Out::new(opts.max_text_bytes, PARA);
    let scan = scan(html, opts, deadline, &mut body);
    Extracted {
        title: scan.title.buf,
        text_truncated: body.truncated || scan.title.truncated,
        body: body.buf,
        depth_capped: scan.depth_capped,
        timed_out: scan.timed_out,
    }
}

/// Which text of a page [`extract_text`] keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TextMode {
    /// All visible text ([`extract_until`]): the default for indexing.
    #[default]
    All,
    /// Main content only: running text without boilerplate
    /// (navigation, headers and footers, link lists, sharing widgets),
    /// as the [`main_content`] rules decide.
    Main,
}

impl TextMode {
    /// The name used on the command line and in manifests.
    pub fn name(self) -> &'static str {
        match self {
            TextMode::All => "all",
            TextMode::Main => "main",
        }
    }
}

/// The title and the text `mode` asks for: [`extract_until`] for
/// [`TextMode::All`], [`extract_main`] for [`TextMode::Main`].
pub fn extract_text(
    html: &str,
    opts: &HtmlOptions,
    mode: TextMode,
    deadline: Option<Instant>,
) -> Extracted {
    match mode {
        TextMode::All => extract_until(html, opts, deadline),
        TextMode::Main => extract_main(html, opts, deadline),
    }
}

pub use main_content::extract_main;

/// The paragraphs of an extracted body: the pieces between blank lines,
/// in order. Every paragraph is non-empty and none of its lines is empty
/// or starts or ends with whitespace (the scanner never writes one), so
/// splitting loses nothing but the separators; a body without text has
/// no paragraph.
pub fn paragraphs(body: &str) -> impl Iterator<Item = &str> {
    body.split("\n\n").filter(|p| !p.is_empty())
}

/// The body as `extract` writes it: [`paragraphs`] with every line
/// trimmed of all Unicode whitespace (the scanner collapses only ASCII
/// whitespace and U+00A0; pages also indent with U+3000 or U+2003), empty
/// lines and then empty paragraphs dropped, paragraphs joined by one blank
/// line.
pub fn clean_paragraphs(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    for p in paragraphs(body) {
        let mut first_line = true;
        for line in p.split('\n').map(str::trim).filter(|l| !l.is_empty()) {
            if first_line {
                if !out.is_empty() {
                    out.push_str("\n\n");
                }
                first_line = false;
            } else {
                out.push('\n');
            }
            out.push_str(line);
        }
    }
    out
}

/// Plain text (a SMART record's body, a crawl record marked as plain text) to
/// title and text: the first line is the title, the rest the text. Nothing
/// is markup (`<` and `&` are text). Whitespace collapses as in
/// [`extract`]'s `<pre>` (a run with a line break is one `"\n"`, others one
/// space, blank lines collapse; no leading or trailing whitespace), and
/// [`HtmlOptions::max_text_bytes`] cuts title and text as it does there.
/// There is no nesting and no deadline: the scan is one linear pass.
pub fn plain_text(text: &str, opts: &HtmlOptions) -> Extracted {
    let (first, rest) = text.split_once('\n').unwrap_or((text, ""));
    let mut title = Out::new(opts.max_text_bytes, SPACE);
    title.text(first, false);
    let mut body = Out::new(opts.max_text_bytes, LINE);
    body.text(rest, true);
    Extracted {
        title: title.buf,
        text_truncated: body.truncated || title.truncated,
        body: body.buf,
        depth_capped: false,
        timed_out: false,
    }
}

#[cfg(test)]
mod tests;
