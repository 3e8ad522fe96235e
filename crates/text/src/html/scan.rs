//! The one scanner over HTML: text runs, character references, comments
//! and tags in a single forward pass, the body text fed to a [`Sink`] and
//! the title to an [`Out`] of its own; what a tag name means ([`Kind`]).

use std::ops::Range;
use std::time::Instant;

use memchr::{memchr, memchr2, memmem};

use super::out::{LINE, Out, PARA, SPACE, Sink, is_ws};
use super::{DEADLINE_STEPS, HtmlOptions, entities};

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

#[inline]
pub(super) fn is_void(name: &[u8]) -> bool {
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

/// What [`scan`] returns besides the body it fed.
pub(super) struct Scan {
    /// The title.
    pub(super) title: Out,
    /// The input nested deeper than [`HtmlOptions::max_depth`].
    pub(super) depth_capped: bool,
    /// The deadline passed: the scan stopped there.
    pub(super) timed_out: bool,
}

/// The one scanner: feeds the visible body text of `html` to `body` and
/// returns the title and the cap flags.
pub(super) fn scan<S: Sink>(
    html: &str,
    opts: &HtmlOptions,
    deadline: Option<Instant>,
    body: &mut S,
) -> Scan {
    let mut s = Scanner::new(html, opts);
    let mut clock = Clock { deadline, steps: 0 };
    let mut timed_out = false;
    let b = html.as_bytes();
    while s.pos < b.len() && !body.full() {
        if clock.passed() {
            timed_out = true;
            break;
        }
        let Some(off) = memchr2(b'<', b'&', &b[s.pos..]) else {
            s.text(body, &html[s.pos..]);
            break;
        };
        let at = s.pos + off;
        s.text(body, &html[s.pos..at]);
        if b[at] == b'&' {
            s.reference(body, at);
        } else if !s.markup(body, at) {
            // A tag open at EOF is dropped.
            break;
        }
    }
    Scan {
        title: s.title,
        depth_capped: s.depth_capped,
        timed_out,
    }
}

/// The deadline of a scan, looked at every [`DEADLINE_STEPS`] steps.
struct Clock {
    /// When the scan must stop, if ever.
    deadline: Option<Instant>,
    /// Steps since the clock was last read.
    steps: u32,
}

impl Clock {
    /// Counts a step; true once the deadline has passed (the clock is read
    /// every [`DEADLINE_STEPS`] steps).
    #[inline(always)]
    fn passed(&mut self) -> bool {
        if let Some(d) = self.deadline {
            self.steps += 1;
            if self.steps >= DEADLINE_STEPS {
                self.steps = 0;
                if Instant::now() >= d {
                    return true;
                }
            }
        }
        false
    }
}

/// The scanner's state between two steps. The steps are
/// `#[inline(always)]` so that [`scan`] compiles to one loop as it did
/// before it was split into them (callgrind, reading, decoding and
/// extracting the shared WARC and WT10g samples: within 1% of the
/// instructions of the single function).
struct Scanner<'a> {
    /// The page.
    html: &'a str,
    /// The caps.
    opts: &'a HtmlOptions,
    /// Where the next step starts.
    pos: usize,
    /// The title, from the first `<title>`.
    title: Out,
    /// A `<title>` was read.
    have_title: bool,
    /// Open elements (non-void start tags minus end tags, capped).
    depth: usize,
    /// The depth cap fired.
    depth_capped: bool,
    /// Open `template` elements: text is hidden while there is one.
    template: usize,
    /// Open `pre` (and `listing`) elements: line breaks are kept inside.
    pre: usize,
}

impl<'a> Scanner<'a> {
    /// A scanner at the start of `html`.
    fn new(html: &'a str, opts: &'a HtmlOptions) -> Self {
        Scanner {
            html,
            opts,
            pos: 0,
            title: Out::new(opts.max_text_bytes, SPACE),
            have_title: false,
            depth: 0,
            depth_capped: false,
            template: 0,
            pre: 0,
        }
    }

    /// Sends text to `body`, unless a `template` hides it.
    #[inline(always)]
    fn text<S: Sink>(&self, body: &mut S, text: &str) {
        if self.template == 0 {
            body.text(text, self.pre > 0);
        }
    }

    /// The character reference (or literal `&`) at `at`.
    #[inline(always)]
    fn reference<S: Sink>(&mut self, body: &mut S, at: usize) {
        match entities::decode_ref(self.html.as_bytes(), at) {
            Some((r, next)) => {
                if self.template == 0 {
                    body.reference(r, self.pre > 0);
                }
                self.pos = next;
            }
            None => {
                self.text(body, "&");
                self.pos = at + 1;
            }
        }
    }

    /// The markup at `at` (a `<`): a comment, CDATA section, bogus comment,
    /// tag, or a `<` that is text. Returns false when a tag is still open
    /// at the end of the input.
    #[inline(always)]
    fn markup<S: Sink>(&mut self, body: &mut S, at: usize) -> bool {
        let b = self.html.as_bytes();
        if let Some(next) = skip_comment(b, at) {
            self.pos = next;
            return true;
        }
        let end_tag = b[at..].starts_with(b"</");
        let name_start = at + if end_tag { 2 } else { 1 };
        match b.get(name_start) {
            Some(c) if c.is_ascii_alphabetic() => {}
            Some(b'>') if end_tag => {
                // `</>` is ignored.
                self.pos = name_start + 1;
                return true;
            }
            _ if end_tag => {
                // `</` + non-letter: bogus comment to the next `>`.
                self.pos = memchr(b'>', &b[name_start..]).map_or(b.len(), |e| name_start + e + 1);
                return true;
            }
            _ => {
                // A lone `<` is text.
                self.text(body, "<");
                self.pos = at + 1;
                return true;
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
        let Some(after) = skip_attributes(b, name_end) else {
            return false;
        };
        self.pos = after;
        self.tag(body, name_start..name_end, after, end_tag);
        true
    }

    /// A start or end tag whose name is `b[name]` and which ends just
    /// before `after`: the open-element counts, and what the element means
    /// to the text.
    #[inline(always)]
    fn tag<S: Sink>(&mut self, body: &mut S, name: Range<usize>, after: usize, end_tag: bool) {
        let b = self.html.as_bytes();
        let attrs = &b[name.end..after];
        let name = &b[name];
        let k = kind(name);
        if end_tag {
            self.depth = self.depth.saturating_sub(1);
            match k {
                Kind::Template => self.template = self.template.saturating_sub(1),
                Kind::Block if is_pre(name) => self.pre = self.pre.saturating_sub(1),
                _ => {}
            }
        } else if !is_void(name) {
            if self.depth >= self.opts.max_depth {
                self.depth_capped = true;
            } else {
                self.depth += 1;
            }
        }
        if self.template > 0 && (end_tag || k != Kind::Template) {
            return;
        }
        if matches!(k, Kind::Block | Kind::Line | Kind::Space | Kind::Inline) {
            body.tag(name, attrs, end_tag);
        }
        match k {
            Kind::Block => {
                body.brk(PARA);
                if !end_tag && is_pre(name) {
                    self.pre += 1;
                }
            }
            Kind::Line => body.brk(LINE),
            Kind::Space => body.brk(SPACE),
            Kind::Inline => {}
            Kind::Template => {
                if !end_tag {
                    if self.template < self.opts.max_depth {
                        self.template += 1;
                    } else {
                        self.depth_capped = true;
                    }
                }
            }
            Kind::Raw | Kind::Title | Kind::Textarea if end_tag => {}
            Kind::Raw | Kind::Title | Kind::Textarea => self.raw_text(body, k, name),
        }
    }

    /// The content of a raw-text element, `title` or `textarea` (its start
    /// tag just read) through its end tag: dropped, the title, or text.
    #[inline(always)]
    fn raw_text<S: Sink>(&mut self, body: &mut S, k: Kind, name: &[u8]) {
        let b = self.html.as_bytes();
        let content_end = find_end_tag(b, self.pos, name).unwrap_or(b.len());
        let content = &self.html[self.pos..content_end];
        match k {
            Kind::Title if !self.have_title => {
                self.have_title = true;
                rcdata(content, &mut self.title, false);
            }
            Kind::Textarea => {
                body.brk(SPACE);
                rcdata(content, body, true);
                body.brk(SPACE);
            }
            _ => {}
        }
        // The end tag itself.
        self.depth = self.depth.saturating_sub(1);
        self.pos = if content_end < b.len() {
            skip_attributes(b, content_end + 2 + name.len()).unwrap_or(b.len())
        } else {
            b.len()
        };
    }
}

/// Where a comment (`<!--`, to the end of the input if unterminated), a
/// CDATA section or a bogus comment (`<!`, `<?`) starting at `at` ends, or
/// `None` if none starts there.
#[inline(always)]
fn skip_comment(b: &[u8], at: usize) -> Option<usize> {
    let rest = &b[at..];
    if rest.starts_with(b"<!--") {
        // `<!-->` and `<!--->` are empty comments; EOF ends the comment.
        let from = at + 2;
        return Some(match memmem::find(&b[from..], b"-->") {
            Some(e) => from + e + 3,
            None => b.len(),
        });
    }
    if rest.starts_with(b"<![CDATA[") {
        return Some(match memmem::find(&b[at + 9..], b"]]>") {
            Some(e) => at + 9 + e + 3,
            None => b.len(),
        });
    }
    if rest.starts_with(b"<!") || rest.starts_with(b"<?") {
        return Some(memchr(b'>', &b[at + 2..]).map_or(b.len(), |e| at + 2 + e + 1));
    }
    None
}
