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

use std::time::Instant;

use memchr::{memchr, memchr2, memmem};

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

/// Break levels between two pieces of text, in increasing strength.
const SPACE: u8 = 1;
const LINE: u8 = 2;
const PARA: u8 = 3;

/// A text sink that collapses whitespace and applies the byte cap.
struct Out {
    buf: String,
    pending: u8,
    /// Strongest break this sink may emit (`SPACE` for the title).
    max_break: u8,
    cap: usize,
    truncated: bool,
    /// Words appended so far (for [`main_content`]).
    words: usize,
}

impl Out {
    fn new(cap: usize, max_break: u8) -> Self {
        Out {
            buf: String::new(),
            pending: 0,
            max_break,
            cap,
            truncated: false,
            words: 0,
        }
    }

    fn brk(&mut self, level: u8) {
        self.pending = self.pending.max(level.min(self.max_break));
    }

    /// The separator the next word gets.
    fn sep(&self) -> &'static str {
        if self.buf.is_empty() {
            ""
        } else {
            match self.pending {
                0 => "",
                SPACE => " ",
                LINE => "\n",
                _ => "\n\n",
            }
        }
    }

    /// Appends `n` words joined by single spaces (`span`), as `n` calls of
    /// [`Out::word`] with a [`SPACE`] break between them would, in one
    /// copy when it fits under the cap.
    fn words(&mut self, span: &str, n: usize) {
        let sep = self.sep();
        if n > 1 && !self.truncated && self.buf.len() + sep.len() + span.len() <= self.cap {
            self.pending = 0;
            self.words += n;
            self.buf.push_str(sep);
            self.buf.push_str(span);
            return;
        }
        for (k, w) in span.split(' ').enumerate() {
            if self.truncated {
                return;
            }
            if k > 0 {
                self.brk(SPACE);
            }
            self.word(w);
        }
    }

    /// Appends `s`, which contains no whitespace that should collapse.
    fn word(&mut self, s: &str) {
        if self.truncated || s.is_empty() {
            return;
        }
        let sep = self.sep();
        self.pending = 0;
        self.words += 1;
        if self.buf.len() + sep.len() + s.len() <= self.cap {
            self.buf.push_str(sep);
            self.buf.push_str(s);
            return;
        }
        self.truncated = true;
        let room = self.cap.saturating_sub(self.buf.len() + sep.len());
        let mut cut = room.min(s.len());
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        if cut > 0 {
            self.buf.push_str(sep);
            self.buf.push_str(&s[..cut]);
        }
    }

    /// Appends text that may contain whitespace; `pre` keeps line breaks.
    fn text(&mut self, s: &str, pre: bool) {
        let b = s.as_bytes();
        let mut i = 0;
        while i < b.len() && !self.truncated {
            let c = b[i];
            if is_ws(c) {
                let start = i;
                while i < b.len() && is_ws(b[i]) {
                    i += 1;
                }
                let nl = pre && b[start..i].iter().any(|&c| c == b'\n' || c == b'\r');
                self.brk(if nl { LINE } else { SPACE });
            } else if is_nbsp(b, i) {
                self.brk(SPACE);
                i += 2;
            } else {
                let start = i;
                i = word_end(b, i);
                // Words joined by single spaces go in as one span.
                let mut n = 1;
                while i + 1 < b.len() && b[i] == b' ' && !is_ws(b[i + 1]) && !is_nbsp(b, i + 1) {
                    i = word_end(b, i + 1);
                    n += 1;
                }
                // Splits only at ASCII bytes or before U+00A0: char boundaries.
                self.words(&s[start..i], n);
            }
        }
    }

    /// Appends one decoded character reference.
    fn reference(&mut self, r: entities::Ref, pre: bool) {
        let mut tmp = [0u8; 4];
        let s: &str = match r {
            entities::Ref::Str(s) => s,
            entities::Ref::Char(c) => c.encode_utf8(&mut tmp),
        };
        if s.chars().all(char::is_whitespace) {
            let nl = pre && s.contains(['\n', '\r']);
            self.brk(if nl { LINE } else { SPACE });
        } else {
            self.text(s, pre);
        }
    }
}

const fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0C)
}

/// U+00A0 (no-break space) starts at `b[i]`.
#[inline]
fn is_nbsp(b: &[u8], i: usize) -> bool {
    b[i] == 0xC2 && b.get(i + 1) == Some(&0xA0)
}

/// The end of the word starting at `b[i]`: the next whitespace byte or
/// U+00A0, or the end. One table lookup per byte ([`STOPS`]); only a 0xC2
/// byte looks at the next.
#[inline]
fn word_end(b: &[u8], mut i: usize) -> usize {
    while let Some(&c) = b.get(i) {
        if STOPS[usize::from(c)] && (c != 0xC2 || b.get(i + 1) == Some(&0xA0)) {
            break;
        }
        i += 1;
    }
    i
}

/// The bytes that may end a word ([`word_end`]): whitespace ([`is_ws`]),
/// and 0xC2, the first byte of U+00A0.
const STOPS: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        t[c] = is_ws(c as u8) || c == 0xC2;
        c += 1;
    }
    t
};

/// Where the scanner sends the body text: [`Out`] for all text, the
/// block collector of [`main_content`] for main content.
trait Sink {
    /// Appends text that may contain whitespace; `pre` keeps line breaks.
    fn text(&mut self, s: &str, pre: bool);
    /// Appends one decoded character reference.
    fn reference(&mut self, r: entities::Ref, pre: bool);
    /// Asks for a break of at least `level` before the next word.
    fn brk(&mut self, level: u8);
    /// The text cap was hit: the scan stops.
    fn full(&self) -> bool;
    /// A visible start or end tag other than a raw-text element, `title`,
    /// `textarea` or `template` (`attrs`: the bytes from the end of the
    /// name to the closing `>`).
    #[inline]
    fn tag(&mut self, _name: &[u8], _attrs: &[u8], _end: bool) {}
}

impl Sink for Out {
    #[inline]
    fn text(&mut self, s: &str, pre: bool) {
        Out::text(self, s, pre);
    }
    #[inline]
    fn reference(&mut self, r: entities::Ref, pre: bool) {
        Out::reference(self, r, pre);
    }
    #[inline]
    fn brk(&mut self, level: u8) {
        Out::brk(self, level);
    }
    #[inline]
    fn full(&self) -> bool {
        self.truncated
    }
}

/// What a tag name means to the scanner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Paragraph boundary.
    Block,
    /// Line break.
    Line,
    /// Word separator.
    Space,
    /// Raw text element whose content is dropped.
    Raw,
    /// `<title>`.
    Title,
    /// `<textarea>`: RCDATA kept as text.
    Textarea,
    /// `<template>`: content hidden.
    Template,
    /// Anything else.
    Inline,
}

fn kind(name: &[u8]) -> Kind {
    // Names are at most 10 bytes here; compare lower-cased.
    let mut low = [0u8; 10];
    if name.len() > low.len() {
        return Kind::Inline;
    }
    for (d, s) in low.iter_mut().zip(name) {
        *d = s.to_ascii_lowercase();
    }
    match &low[..name.len()] {
        b"address" | b"article" | b"aside" | b"blockquote" | b"body" | b"caption" | b"center"
        | b"dd" | b"details" | b"dialog" | b"dir" | b"div" | b"dl" | b"dt" | b"fieldset"
        | b"figcaption" | b"figure" | b"footer" | b"form" | b"frameset" | b"h1" | b"h2" | b"h3"
        | b"h4" | b"h5" | b"h6" | b"header" | b"hgroup" | b"hr" | b"html" | b"legend" | b"li"
        | b"listing" | b"main" | b"menu" | b"nav" | b"ol" | b"p" | b"pre" | b"section"
        | b"summary" | b"table" | b"tbody" | b"tfoot" | b"thead" | b"tr" | b"ul" => Kind::Block,
        b"br" | b"td" | b"th" | b"option" => Kind::Line,
        b"img" | b"input" | b"button" | b"select" | b"wbr" => Kind::Space,
        b"script" | b"style" | b"noscript" | b"iframe" | b"noembed" | b"noframes" | b"xmp" => {
            Kind::Raw
        }
        b"title" => Kind::Title,
        b"textarea" => Kind::Textarea,
        b"template" => Kind::Template,
        _ => Kind::Inline,
    }
}

fn is_void(name: &[u8]) -> bool {
    const VOID: [&[u8]; 15] = [
        b"area", b"base", b"br", b"col", b"embed", b"hr", b"img", b"input", b"link", b"meta",
        b"param", b"source", b"track", b"wbr", b"keygen",
    ];
    VOID.iter().any(|v| v.eq_ignore_ascii_case(name))
}

fn is_pre(name: &[u8]) -> bool {
    name.eq_ignore_ascii_case(b"pre") || name.eq_ignore_ascii_case(b"listing")
}

/// Finds the end tag `</name` (any case) followed by whitespace, `/` or `>`
/// at or after `from`. Returns the index of its `<`.
fn find_end_tag(b: &[u8], from: usize, name: &[u8]) -> Option<usize> {
    let finder = memmem::Finder::new(b"</");
    let mut pos = from;
    while let Some(off) = finder.find(&b[pos..]) {
        let lt = pos + off;
        let n0 = lt + 2;
        let n1 = n0 + name.len();
        if n1 <= b.len()
            && b[n0..n1].eq_ignore_ascii_case(name)
            && b.get(n1)
                .is_none_or(|&c| is_ws(c) || c == b'/' || c == b'>')
        {
            return Some(lt);
        }
        pos = lt + 2;
    }
    None
}

/// Skips the attributes of a tag starting at `pos` (just after the name).
/// Returns the index just after the closing `>`, or `None` if the input ends
/// first. `>` inside a quoted attribute value does not end the tag. The
/// self-closing flag `/>` is not reported: HTML ignores it on non-void
/// elements (`<script/>` still opens raw text), and void elements need none.
fn skip_attributes(b: &[u8], mut pos: usize) -> Option<usize> {
    loop {
        let c = *b.get(pos)?;
        match c {
            b'>' => return Some(pos + 1),
            b'=' => {
                pos += 1;
                while b.get(pos).is_some_and(|&c| is_ws(c)) {
                    pos += 1;
                }
                if let Some(&q @ (b'"' | b'\'')) = b.get(pos) {
                    pos += 1 + memchr(q, &b[pos + 1..])? + 1;
                }
            }
            _ => pos += 1,
        }
    }
}

/// Decodes the RCDATA `s` (entities, no tags) into `out`.
fn rcdata<S: Sink>(s: &str, out: &mut S, pre: bool) {
    let b = s.as_bytes();
    let mut pos = 0;
    while pos < b.len() && !out.full() {
        let Some(off) = memchr(b'&', &b[pos..]) else {
            out.text(&s[pos..], pre);
            return;
        };
        let amp = pos + off;
        out.text(&s[pos..amp], pre);
        match entities::decode_ref(b, amp) {
            Some((r, next)) => {
                out.reference(r, pre);
                pos = next;
            }
            None => {
                out.text("&", pre);
                pos = amp + 1;
            }
        }
    }
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

/// What [`scan`] returns besides the body it fed.
struct Scan {
    title: Out,
    depth_capped: bool,
    timed_out: bool,
}

/// The one scanner: feeds the visible body text of `html` to `body` and
/// returns the title and the cap flags.
fn scan<S: Sink>(html: &str, opts: &HtmlOptions, deadline: Option<Instant>, body: &mut S) -> Scan {
    let b = html.as_bytes();
    let mut timed_out = false;
    let mut steps: u32 = 0;
    let mut title = Out::new(opts.max_text_bytes, SPACE);
    let mut have_title = false;
    let mut depth: usize = 0;
    let mut depth_capped = false;
    // Open `template` elements (text hidden while > 0) and `pre` elements.
    let mut template: usize = 0;
    let mut pre: usize = 0;
    let mut pos = 0;

    while pos < b.len() && !body.full() {
        if let Some(d) = deadline {
            steps += 1;
            if steps >= DEADLINE_STEPS {
                steps = 0;
                if Instant::now() >= d {
                    timed_out = true;
                    break;
                }
            }
        }
        let Some(off) = memchr2(b'<', b'&', &b[pos..]) else {
            if template == 0 {
                body.text(&html[pos..], pre > 0);
            }
            break;
        };
        let at = pos + off;
        if template == 0 {
            body.text(&html[pos..at], pre > 0);
        }
        if b[at] == b'&' {
            match entities::decode_ref(b, at) {
                Some((r, next)) => {
                    if template == 0 {
                        body.reference(r, pre > 0);
                    }
                    pos = next;
                }
                None => {
                    if template == 0 {
                        body.text("&", pre > 0);
                    }
                    pos = at + 1;
                }
            }
            continue;
        }
        // b[at] == b'<'
        let rest = &b[at..];
        if rest.starts_with(b"<!--") {
            // `<!-->` and `<!--->` are empty comments; EOF ends the comment.
            let from = at + 2;
            pos = match memmem::find(&b[from..], b"-->") {
                Some(e) => from + e + 3,
                None => b.len(),
            };
            continue;
        }
        if rest.starts_with(b"<![CDATA[") {
            pos = match memmem::find(&b[at + 9..], b"]]>") {
                Some(e) => at + 9 + e + 3,
                None => b.len(),
            };
            continue;
        }
        if rest.starts_with(b"<!") || rest.starts_with(b"<?") {
            pos = memchr(b'>', &b[at + 2..]).map_or(b.len(), |e| at + 2 + e + 1);
            continue;
        }
        let end_tag = rest.starts_with(b"</");
        let name_start = at + if end_tag { 2 } else { 1 };
        match b.get(name_start) {
            Some(c) if c.is_ascii_alphabetic() => {}
            Some(b'>') if end_tag => {
                // `</>` is ignored.
                pos = name_start + 1;
                continue;
            }
            _ if end_tag => {
                // `</` + non-letter: bogus comment to the next `>`.
                pos = memchr(b'>', &b[name_start..]).map_or(b.len(), |e| name_start + e + 1);
                continue;
            }
            _ => {
                // A lone `<` is text.
                if template == 0 {
                    body.text("<", pre > 0);
                }
                pos = at + 1;
                continue;
            }
        }
        let mut name_end = name_start;
        while name_end < b.len()
            && !is_ws(b[name_end])
            && b[name_end] != b'/'
            && b[name_end] != b'>'
        {
            name_end += 1;
        }
        let name = &b[name_start..name_end];
        let Some(after) = skip_attributes(b, name_end) else {
            // A tag open at EOF is dropped.
            break;
        };
        pos = after;
        let k = kind(name);

        if end_tag {
            depth = depth.saturating_sub(1);
            match k {
                Kind::Template => template = template.saturating_sub(1),
                Kind::Block if is_pre(name) => pre = pre.saturating_sub(1),
                _ => {}
            }
        } else if !is_void(name) {
            if depth >= opts.max_depth {
                depth_capped = true;
            } else {
                depth += 1;
            }
        }
        if template > 0 && (end_tag || k != Kind::Template) {
            continue;
        }
        if matches!(k, Kind::Block | Kind::Line | Kind::Space | Kind::Inline) {
            body.tag(name, &b[name_end..after], end_tag);
        }
        match k {
            Kind::Block => {
                body.brk(PARA);
                if !end_tag && is_pre(name) {
                    pre += 1;
                }
            }
            Kind::Line => body.brk(LINE),
            Kind::Space => body.brk(SPACE),
            Kind::Inline => {}
            Kind::Template => {
                if !end_tag {
                    if template < opts.max_depth {
                        template += 1;
                    } else {
                        depth_capped = true;
                    }
                }
            }
            Kind::Raw | Kind::Title | Kind::Textarea if end_tag => {}
            Kind::Raw | Kind::Title | Kind::Textarea => {
                let content_end = find_end_tag(b, pos, name).unwrap_or(b.len());
                let content = &html[pos..content_end];
                match k {
                    Kind::Title if !have_title => {
                        have_title = true;
                        rcdata(content, &mut title, false);
                    }
                    Kind::Textarea => {
                        body.brk(SPACE);
                        rcdata(content, body, true);
                        body.brk(SPACE);
                    }
                    _ => {}
                }
                // The end tag itself.
                depth = depth.saturating_sub(1);
                pos = if content_end < b.len() {
                    skip_attributes(b, content_end + 2 + name.len()).unwrap_or(b.len())
                } else {
                    b.len()
                };
            }
        }
    }

    Scan {
        title,
        depth_capped,
        timed_out,
    }
}

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
