//! Main content: the running text of a page without its boilerplate.
//!
//! [`extract_main`] reads the page with the same scanner, rules and caps
//! as [`super::extract_until`] (so its text is always a subset of the
//! paragraphs `--text all` gives, in the same order and spelling), cuts the
//! text into **blocks** (the paragraphs: text between two block-element
//! boundaries) and keeps the blocks that look like running text, in the
//! tradition of the CleanEval-era block classifiers (KrdWrd, boilerpipe,
//! BTE). Each block is described by:
//!
//! * **words**, and **link density**: the share of its words inside `<a>`;
//! * **tag classes** of the elements around its words:
//!   *boilerplate* (`nav`, `aside`, `footer`, `header`, `menu`, `form`,
//!   `button`, `select`, `dialog`, `figcaption`; an ARIA role `navigation`,
//!   `banner`, `contentinfo`, `complementary`, `menu`, `menubar`, `search`,
//!   `dialog`, `alert`; a `class` or `id` naming navigation, menus,
//!   footers, sidebars, comments, sharing, related links, breadcrumbs,
//!   cookies, ads, promotions, subscriptions, newsletters, pop-ups,
//!   widgets, sponsors, tags, bylines or captions), *hidden* (`hidden`,
//!   `aria-hidden="true"`, an inline style `display:none` or
//!   `visibility:hidden`), *article body* (`itemprop="articleBody"`, or a
//!   class or id such as `article-body`, `story-body`, `entry-content`,
//!   `post-content`), *content* (`article`, `main`, role `main`, or a class
//!   or id containing `article`, `content`, `story` or `post`);
//! * whether it is a **heading** (`h1`-`h6`).
//!
//! Link density and headings are counted per word; the tag classes
//! describe regions: an element with one covers the blocks that begin
//! between its start and end tags. A boilerplate or hidden element that
//! covers half or more of the page's running text (and at least 50 words
//! of it) is a page wrapper named carelessly (`<div class="page-ad-margins">`,
//! `<div class="container penci_sidebar">` around the whole article) and
//! is ignored. Classes on `html` and `body` are ignored too.
//!
//! A block is **running text** when it has at least 10 words, or at least
//! 5 ending like a sentence (`.`, `!`, `?`, `:`, `)`, a closing quote or
//! `。`), at most a third of them link text, and at least 4 words per line
//! on average (a list of short lines is not running text). A block is
//! **boilerplate** when a boilerplate or hidden region covers it, or when
//! more than a third of its words are link text.
//!
//! Selection:
//!
//! 1. When the page marks an article body holding at least 40 words of
//!    non-boilerplate text, the candidate region is the article-body
//!    blocks.
//! 2. Otherwise the region is the run of consecutive blocks with the
//!    highest score (a maximum-sum subarray, as in Finn, Kushmerick and
//!    Smyth's BTE): a block of running text scores its word count (one and
//!    a half times that inside a content element), a boilerplate block
//!    minus its word count, and any other block minus one.
//! 3. The text is the region's blocks that are not boilerplate, joined
//!    with one blank line; a heading only when running text follows it in
//!    the region.
//!
//! When no block qualifies (a page of link lists only, or no text), the
//! body is empty: the main content of such a page is nothing. The title
//! is the page's title, as for `all`. Memory, besides the text itself: one
//! block record (40 bytes) per paragraph, one frame (12 bytes) per element
//! with a tag class, and a stack of at most `max_depth` open elements; time
//! stays linear in the input.
//!
//! How well it does (bench/README.md, "Main content"): on the 141 pages of
//! the article-extraction benchmark that were not used to write these
//! rules, token F1 0.947 against the ground truth (Resiliparse's
//! `main_content` 0.899, trafilatura 0.948).

use std::time::Instant;

use super::out::{Out, PARA, Sink, is_ws};
use super::scan::{is_void, scan};
use super::{Extracted, HtmlOptions, entities};

/// The element is boilerplate.
const BOILER: u8 = 1;
/// The element is a link.
const LINK: u8 = 2;
/// The element is a content container.
const CONTENT: u8 = 4;
/// The element is a heading.
const HEADING: u8 = 8;
/// The element is hidden.
const HIDDEN: u8 = 16;
/// The element is the article body.
const BODY: u8 = 32;
/// Flags that describe a region of blocks (a frame), not words.
const REGION: u8 = BOILER | CONTENT | HIDDEN | BODY;

/// One open element.
#[derive(Clone, Copy)]
struct Elem {
    name: [u8; 12],
    len: u8,
    /// Word flags (`LINK`, `HEADING`).
    flags: u8,
    /// Its frame in [`Blocks::frames`], if it has region flags.
    frame: u32,
}

const NO_FRAME: u32 = u32::MAX;

impl Elem {
    fn is(&self, name: &[u8]) -> bool {
        &self.name[..self.len as usize] == name
    }
}

/// The blocks an element with region flags spans: those that began after
/// its start tag and before its end tag.
#[derive(Debug, Clone, Copy)]
struct Frame {
    flags: u8,
    start: u32,
    end: u32,
}

/// One paragraph of the text, with its word counts.
#[derive(Debug, Clone, Copy, Default)]
struct Block {
    start: usize,
    end: usize,
    words: u32,
    /// Words inside links.
    link: u32,
    /// Words inside headings.
    heading: u32,
    /// Region flags of the frames that cover it (set after the scan).
    flags: u8,
}

/// The block collector: all text goes into `out`, cut into blocks.
struct Blocks {
    out: Out,
    stack: Vec<Elem>,
    /// Open links and headings.
    open_link: u32,
    open_heading: u32,
    blocks: Vec<Block>,
    frames: Vec<Frame>,
    new_block: bool,
    max_depth: usize,
}

impl Blocks {
    fn account(&mut self, len_before: usize, words_before: usize) {
        let dw = (self.out.words - words_before) as u32;
        if dw == 0 {
            return;
        }
        if self.new_block || self.blocks.is_empty() {
            self.blocks.push(Block {
                start: len_before,
                ..Block::default()
            });
            self.new_block = false;
        }
        let (link, heading) = (self.open_link > 0, self.open_heading > 0);
        let b = self.blocks.last_mut().expect("pushed above");
        b.words += dw;
        b.end = self.out.buf.len();
        if link {
            b.link += dw;
        }
        if heading {
            b.heading += dw;
        }
    }

    fn pop(&mut self) {
        if let Some(e) = self.stack.pop() {
            if e.flags & LINK != 0 {
                self.open_link -= 1;
            }
            if e.flags & HEADING != 0 {
                self.open_heading -= 1;
            }
            if e.frame != NO_FRAME {
                self.frames[e.frame as usize].end = self.blocks.len() as u32;
            }
        }
    }
}

impl Sink for Blocks {
    fn text(&mut self, s: &str, pre: bool) {
        let (l, w) = (self.out.buf.len(), self.out.words);
        self.out.text(s, pre);
        self.account(l, w);
    }
    fn reference(&mut self, r: entities::Ref, pre: bool) {
        let (l, w) = (self.out.buf.len(), self.out.words);
        self.out.reference(r, pre);
        self.account(l, w);
    }
    fn brk(&mut self, level: u8) {
        self.out.brk(level);
        if level >= PARA {
            self.new_block = true;
        }
    }
    fn full(&self) -> bool {
        self.out.truncated
    }
    fn tag(&mut self, name: &[u8], attrs: &[u8], end: bool) {
        let mut low = [0u8; 12];
        let len = name.len().min(low.len());
        for (d, s) in low.iter_mut().zip(name) {
            *d = s.to_ascii_lowercase();
        }
        let lname = &low[..len];
        if end {
            // Close the nearest open element of that name, and everything
            // opened inside it; an end tag with no open element is ignored.
            if let Some(i) = self.stack.iter().rposition(|e| e.is(lname)) {
                while self.stack.len() > i {
                    self.pop();
                }
            }
            return;
        }
        if is_void(name) {
            return;
        }
        // `<p>` and `<li>` close an open one of their kind.
        if (lname == b"p" || lname == b"li") && self.stack.last().is_some_and(|e| e.is(lname)) {
            self.pop();
        }
        if self.stack.len() >= self.max_depth {
            return;
        }
        // Classes on `html` and `body` describe the page, not a part of it.
        let flags = if lname == b"html" || lname == b"body" {
            0
        } else {
            tag_flags(lname) | attr_flags(attrs)
        };
        if flags & LINK != 0 {
            self.open_link += 1;
        }
        if flags & HEADING != 0 {
            self.open_heading += 1;
        }
        let mut frame = NO_FRAME;
        if flags & REGION != 0 {
            frame = self.frames.len() as u32;
            let at = self.blocks.len() as u32;
            self.frames.push(Frame {
                flags: flags & REGION,
                start: at,
                end: u32::MAX,
            });
        }
        self.stack.push(Elem {
            name: low,
            len: len as u8,
            flags,
            frame,
        });
    }
}

fn tag_flags(name: &[u8]) -> u8 {
    match name {
        b"nav" | b"aside" | b"footer" | b"header" | b"menu" | b"form" | b"button" | b"select"
        | b"dialog" | b"figcaption" => BOILER,
        b"a" => LINK,
        b"article" | b"main" => CONTENT,
        b"h1" | b"h2" | b"h3" | b"h4" | b"h5" | b"h6" => HEADING,
        _ => 0,
    }
}

/// Calls `f(name, value)` for each attribute in `attrs` (the bytes after
/// a tag's name), names lower-cased by the caller's comparison.
fn for_each_attr(attrs: &[u8], mut f: impl FnMut(&[u8], &[u8])) {
    let mut i = 0;
    let n = attrs.len();
    while i < n {
        while i < n && (is_ws(attrs[i]) || attrs[i] == b'/') {
            i += 1;
        }
        let ns = i;
        while i < n && !is_ws(attrs[i]) && !matches!(attrs[i], b'=' | b'>' | b'/') {
            i += 1;
        }
        let name = &attrs[ns..i];
        while i < n && is_ws(attrs[i]) {
            i += 1;
        }
        let mut value: &[u8] = b"";
        if i < n && attrs[i] == b'=' {
            i += 1;
            while i < n && is_ws(attrs[i]) {
                i += 1;
            }
            if i < n && (attrs[i] == b'"' || attrs[i] == b'\'') {
                let q = attrs[i];
                let vs = i + 1;
                let ve = memchr::memchr(q, &attrs[vs..]).map_or(n, |e| vs + e);
                value = &attrs[vs..ve];
                i = (ve + 1).min(n);
            } else {
                let vs = i;
                while i < n && !is_ws(attrs[i]) && attrs[i] != b'>' {
                    i += 1;
                }
                value = &attrs[vs..i];
            }
        }
        if name.is_empty() {
            i += 1;
            continue;
        }
        f(name, value);
    }
}

/// Class and id words that mark boilerplate.
const BOILER_WORDS: &[&[u8]] = &[
    b"nav",
    b"menu",
    b"footer",
    b"sidebar",
    b"comment",
    b"share",
    b"sharing",
    b"social",
    b"related",
    b"breadcrumb",
    b"cookie",
    b"advert",
    b"promo",
    b"subscri",
    b"newsletter",
    b"popup",
    b"modal",
    b"banner",
    b"widget",
    b"sponsor",
    b"recommend",
    b"trending",
    b"signup",
    b"toolbar",
    b"masthead",
    b"byline",
    b"caption",
    b"tags",
    b"disclaimer",
    b"copyright",
];

/// Class and id values that mark the article body.
const BODY_WORDS: &[&[u8]] = &[
    b"articlebody",
    b"article-body",
    b"article__body",
    b"article_body",
    b"story-body",
    b"storybody",
    b"story_body",
    b"post-body",
    b"entry-content",
    b"post-content",
    b"article-content",
    b"articlecontent",
    b"article-text",
    b"story-text",
    b"body-text",
];

/// Class and id words that mark a content container.
const CONTENT_WORDS: &[&[u8]] = &[b"article", b"content", b"story", b"post"];

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(hay, needle).is_some()
}

/// Calls `f` with each component of a class or id value, lower-cased:
/// the value is cut at every non-alphanumeric byte and before an upper-case
/// letter that follows a lower-case one (`mainNav sidebar-left` gives
/// `main`, `nav`, `sidebar`, `left`).
fn for_each_component(v: &[u8], mut f: impl FnMut(&[u8])) {
    let mut buf = [0u8; 64];
    let mut n = 0;
    let mut prev_lower = false;
    for &c in v {
        let cut = !c.is_ascii_alphanumeric() || (prev_lower && c.is_ascii_uppercase());
        if cut && n > 0 {
            f(&buf[..n]);
            n = 0;
        }
        if c.is_ascii_alphanumeric() && n < buf.len() {
            buf[n] = c.to_ascii_lowercase();
            n += 1;
        }
        prev_lower = c.is_ascii_lowercase();
    }
    if n > 0 {
        f(&buf[..n]);
    }
}

/// Lower-cases `v` into `buf` (at most its length), returning the slice.
fn lower<'a>(v: &[u8], buf: &'a mut [u8; 256]) -> &'a [u8] {
    let n = v.len().min(buf.len());
    for (d, s) in buf.iter_mut().zip(&v[..n]) {
        *d = s.to_ascii_lowercase();
    }
    &buf[..n]
}

fn attr_flags(attrs: &[u8]) -> u8 {
    if attrs.len() <= 1 {
        return 0;
    }
    let mut flags = 0;
    let mut buf = [0u8; 256];
    for_each_attr(attrs, |name, value| {
        if name.eq_ignore_ascii_case(b"class") || name.eq_ignore_ascii_case(b"id") {
            let mut boiler = false;
            for_each_component(value, |c| {
                boiler |=
                    BOILER_WORDS.iter().any(|w| c.starts_with(w)) || c == b"ad" || c == b"ads";
            });
            let v = lower(value, &mut buf);
            if boiler {
                flags |= BOILER;
            } else if BODY_WORDS.iter().any(|w| contains(v, w)) {
                flags |= BODY | CONTENT;
            } else if CONTENT_WORDS.iter().any(|w| contains(v, w)) {
                flags |= CONTENT;
            }
        } else if name.eq_ignore_ascii_case(b"itemprop") {
            if contains(lower(value, &mut buf), b"articlebody") {
                flags |= BODY | CONTENT;
            }
        } else if name.eq_ignore_ascii_case(b"role") {
            match lower(value, &mut buf) {
                b"navigation" | b"banner" | b"contentinfo" | b"complementary" | b"menu"
                | b"menubar" | b"search" | b"dialog" | b"alert" => flags |= BOILER,
                b"main" => flags |= CONTENT,
                _ => {}
            }
        } else if name.eq_ignore_ascii_case(b"hidden") {
            flags |= HIDDEN;
        } else if name.eq_ignore_ascii_case(b"aria-hidden") {
            if value.eq_ignore_ascii_case(b"true") {
                flags |= HIDDEN;
            }
        } else if name.eq_ignore_ascii_case(b"style") {
            let v = lower(value, &mut buf);
            let squeezed: Vec<u8> = v
                .iter()
                .copied()
                .filter(|c| !c.is_ascii_whitespace())
                .collect();
            if contains(&squeezed, b"display:none") || contains(&squeezed, b"visibility:hidden") {
                flags |= HIDDEN;
            }
        }
    });
    // Boilerplate wins over content when both are named.
    if flags & BOILER != 0 {
        flags &= !(BODY | CONTENT);
    }
    flags
}

/// Whether the block's text ends like a sentence.
fn sentence_like(text: &str) -> bool {
    text.trim_end()
        .ends_with(['.', '!', '?', '"', '\u{201d}', '\u{3002}', ':', ')'])
}

/// Title and main-content text of `html` (see the [module docs](self));
/// caps, deadline and flags as [`super::extract_until`].
pub fn extract_main(html: &str, opts: &HtmlOptions, deadline: Option<Instant>) -> Extracted {
    let mut sink = Blocks {
        out: Out::new(opts.max_text_bytes, PARA),
        stack: Vec::new(),
        open_link: 0,
        open_heading: 0,
        blocks: Vec::new(),
        frames: Vec::new(),
        new_block: true,
        max_depth: opts.max_depth,
    };
    let scan = scan(html, opts, deadline, &mut sink);
    let n = sink.blocks.len() as u32;
    for f in &mut sink.frames {
        f.end = f.end.min(n);
    }
    apply_frames(&mut sink.blocks, &sink.frames, &sink.out.buf);
    let keep = select(&sink.blocks, &sink.out.buf);
    let mut body = String::new();
    for (b, _) in sink.blocks.iter().zip(&keep).filter(|(_, k)| **k) {
        let t = sink.out.buf[b.start..b.end].trim_matches('\n');
        if !body.is_empty() {
            body.push_str("\n\n");
        }
        body.push_str(t);
    }
    Extracted {
        title: scan.title.buf,
        text_truncated: sink.out.truncated || scan.title.truncated,
        body,
        depth_capped: scan.depth_capped,
        timed_out: scan.timed_out,
    }
}

/// Whether a block is running text: at least 10 words, or 5 ending like
/// a sentence; at most a third of them link text; at least 4 words per
/// line on average (a list of short lines is not running text).
fn running(b: &Block, text: &str) -> bool {
    let t = &text[b.start..b.end];
    let lines = 1 + t.trim_matches('\n').bytes().filter(|&c| c == b'\n').count() as u32;
    3 * b.link <= b.words
        && b.words >= 4 * lines
        && (b.words >= 10 || (b.words >= 5 && sentence_like(t)))
}

/// Sets each block's region flags from the frames covering it. A
/// boilerplate or hidden frame holding half or more of the page's
/// running text (and at least 50 words of it) is a wrapper, not
/// boilerplate (`<div class="page-ad-margins">` around a whole page), and
/// is ignored.
fn apply_frames(blocks: &mut [Block], frames: &[Frame], text: &str) {
    let n = blocks.len();
    // Prefix sums of running words.
    let mut prefix = Vec::with_capacity(n + 1);
    prefix.push(0u64);
    for b in blocks.iter() {
        let w = if running(b, text) {
            u64::from(b.words)
        } else {
            0
        };
        prefix.push(prefix.last().copied().unwrap_or(0) + w);
    }
    let total = prefix[n];
    // Difference arrays, one per region flag.
    let bits = [BOILER, CONTENT, HIDDEN, BODY];
    let mut diff = vec![[0i32; 4]; n + 1];
    for f in frames {
        let (s, e) = (f.start as usize, f.end as usize);
        if s >= e {
            continue;
        }
        let inside = prefix[e] - prefix[s];
        let wrapper = inside >= 50 && 2 * inside >= total;
        for (k, &bit) in bits.iter().enumerate() {
            if f.flags & bit == 0 || (wrapper && bit & (BOILER | HIDDEN) != 0) {
                continue;
            }
            diff[s][k] += 1;
            diff[e][k] -= 1;
        }
    }
    let mut cover = [0i32; 4];
    for (i, b) in blocks.iter_mut().enumerate() {
        for k in 0..4 {
            cover[k] += diff[i][k];
            if cover[k] > 0 {
                b.flags |= bits[k];
            }
        }
    }
}

/// Which blocks are kept.
fn select(blocks: &[Block], text: &str) -> Vec<bool> {
    let boiler = |b: &Block| b.flags & (BOILER | HIDDEN) != 0 || 3 * b.link > b.words;
    let heading = |b: &Block| 2 * b.heading > b.words;
    let n = blocks.len();
    let mut region = vec![false; n];
    let body_words: u32 = blocks
        .iter()
        .filter(|b| b.flags & BODY != 0 && !boiler(b))
        .map(|b| b.words)
        .sum();
    if body_words >= 40 {
        for (r, b) in region.iter_mut().zip(blocks) {
            *r = b.flags & BODY != 0;
        }
    } else {
        // Maximum-sum run of blocks.
        let score = |b: &Block| -> f64 {
            if boiler(b) {
                -f64::from(b.words)
            } else if running(b, text) {
                let w = f64::from(b.words);
                if b.flags & CONTENT != 0 { 1.5 * w } else { w }
            } else {
                -1.0
            }
        };
        let (mut best, mut best_range) = (0.0, (0, 0));
        let (mut cur, mut cur_start) = (0.0, 0);
        for (i, b) in blocks.iter().enumerate() {
            if cur <= 0.0 {
                cur = 0.0;
                cur_start = i;
            }
            cur += score(b);
            if cur > best {
                best = cur;
                best_range = (cur_start, i + 1);
            }
        }
        for r in &mut region[best_range.0..best_range.1] {
            *r = true;
        }
    }
    let mut keep = vec![false; n];
    for i in 0..n {
        let b = &blocks[i];
        if !region[i] || boiler(b) {
            continue;
        }
        if heading(b) {
            // A heading only when running text follows it in the region.
            keep[i] = blocks[i + 1..]
                .iter()
                .zip(&region[i + 1..])
                .take_while(|(_, r)| **r)
                .find(|(b, _)| !heading(b) && !boiler(b))
                .is_some_and(|(b, _)| running(b, text));
            continue;
        }
        keep[i] = true;
    }
    keep
}

#[cfg(test)]
mod tests;
