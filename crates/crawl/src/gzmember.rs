//! Gzip decoding member by member, resynchronising past a damaged member.
//!
//! [`GzMembers`] decodes a gzip file (one member, or one member per record
//! as in `.warc.gz`) like `flate2`'s `MultiGzDecoder`, but when a member is
//! damaged (bad magic or header, corrupt deflate data, a bad CRC or length,
//! or a member cut short by the next one) it looks for the next member: a
//! `1f 8b 08` with valid flags, a header that parses and a member that
//! inflates (to its verified end, or for [`TRIAL`] bytes of input or
//! output). The span skipped, from the start of the bad member, is reported
//! as a [`Gap`]. If no later member is found the error is final
//! ([`Failure`]): for a file of one member (one-stream gzip) nothing after
//! the damage can be recovered.
//!
//! The output of a member is *tentative* until its trailer verifies
//! ([`GzMembers::tentative`]): the caller holds those bytes back, and drops
//! them ([`Gap::retract`]) if the member turns out damaged and a later member
//! is found, so the stream reads as if the bad member had been removed.
//! Members whose output passes [`HOLD`] bytes are streamed instead (their
//! partial output stays). On a final failure the tentative bytes are
//! committed: what was decoded before the damage is kept.
//!
//! Memory is bounded: the compressed bytes kept behind the decoder for a
//! resync scan are at most [`BEHIND`] (plus the current member, when it is
//! shorter), so a candidate member start more than [`BEHIND`] bytes before
//! the point where decoding failed is not seen; with `keep` set, the first
//! `keep` bytes of the current member are kept for the quarantine.

use std::collections::VecDeque;
use std::io::{self, Read};

use flate2::{Crc, Decompress, FlushDecompress, Status};

use super::MemberPos;

/// Smallest read from the compressed input.
const READ_CHUNK: usize = 64 * 1024;
/// Compressed bytes kept behind the decoder for a resync scan.
const BEHIND: u64 = 1 << 20;
/// Decompressed bytes of one member held back until its trailer verifies.
pub(crate) const HOLD: u64 = 8 << 20;
/// A resync candidate that inflates this many bytes of input or output
/// without error is accepted.
const TRIAL: u64 = 1 << 20;
/// Longest gzip header name or comment accepted.
const MAX_NAME: usize = 64 * 1024;
/// Member starts remembered (see [`GzMembers::member_of`]); beyond this the
/// oldest are forgotten.
const MAX_STARTS: usize = 1 << 16;

/// A damaged member that was skipped; a later member was found.
#[derive(Debug)]
pub(crate) struct Gap {
    /// Compressed offset of the start of the damaged member.
    pub member_offset: u64,
    /// Compressed bytes skipped (from `member_offset` to the next member).
    pub skipped: u64,
    /// Decompressed bytes already returned by `read` that belong to the
    /// damaged member (its tentative output): the caller drops them.
    pub retract: u64,
    /// What was wrong.
    pub reason: String,
    /// With `keep`: the first compressed bytes of the span (at most `keep`).
    pub kept: Option<Vec<u8>>,
    /// The span held more than `kept`.
    pub kept_truncated: bool,
}

/// A damaged member with no intact member after it: reading ends.
#[derive(Debug, Clone)]
pub(crate) struct Failure {
    /// Compressed offset of the start of the damaged member.
    pub member_offset: u64,
    /// Compressed offset where decoding stopped.
    pub at: u64,
    /// The input ended inside the member (else it is corrupt).
    pub truncated: bool,
    /// What was wrong.
    pub reason: String,
    /// The damaged member is the file's first (a one-stream gzip file, or
    /// every later member is damaged too).
    pub one_stream: bool,
}

impl Failure {
    /// What can and cannot be recovered, for the error message.
    pub(crate) fn detail(&self) -> String {
        if self.one_stream {
            format!(
                "one-stream gzip (no intact member after the first): nothing after compressed \
                 offset {} can be recovered",
                self.at
            )
        } else {
            format!(
                "no intact gzip member follows the damaged member at compressed offset {}: \
                 nothing after it can be recovered",
                self.member_offset
            )
        }
    }
}

/// A change the decoder made to its list of member starts, logged for a
/// reader on another thread that keeps its own copy
/// ([`super::gunzip`]).
#[derive(Debug, Clone, Copy)]
pub(crate) enum StartOp {
    /// A member's header was read.
    Push(MemberPos),
    /// The last member was damaged and its output dropped: so is its start.
    PopBack,
}

/// Where recent members start (compressed, and decompressed in the stream
/// `read` returns), oldest first, at most [`MAX_STARTS`].
#[derive(Debug, Default)]
pub(crate) struct Starts(VecDeque<MemberPos>);

impl Starts {
    fn push(&mut self, m: MemberPos) {
        if self.0.len() >= MAX_STARTS {
            self.0.pop_front();
        }
        self.0.push_back(m);
    }

    /// Replays a change logged by another decoder.
    pub(crate) fn apply(&mut self, op: StartOp) {
        match op {
            StartOp::Push(m) => self.push(m),
            StartOp::PopBack => {
                self.0.pop_back();
            }
        }
    }

    /// See [`GzMembers::member_of`].
    pub(crate) fn member_of(&self, offset: u64) -> Option<MemberPos> {
        let i = self.0.partition_point(|m| m.decompressed <= offset);
        i.checked_sub(1).map(|i| self.0[i])
    }

    /// See [`GzMembers::forget_before`].
    pub(crate) fn forget_before(&mut self, offset: u64) {
        while self.0.len() > 1 && self.0[1].decompressed <= offset {
            self.0.pop_front();
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Header,
    Body,
    Trailer,
    Done,
    Failed,
}

/// The member being decoded.
#[derive(Debug, Clone, Copy, Default)]
struct Member {
    start: u64,
    index: u64,
    out: u64,
    big: bool,
}

/// Streaming gzip decoder with member resynchronisation (see the module docs).
pub(crate) struct GzMembers<R> {
    inner: R,
    buf: Vec<u8>,
    /// Compressed offset of `buf[0]`.
    start: u64,
    pos: usize,
    end: usize,
    eof: bool,
    state: State,
    member: Member,
    inflate: Decompress,
    crc: Crc,
    keep: usize,
    /// Compressed bytes of the current member dropped from `buf` (keep mode).
    head: Vec<u8>,
    gap: Option<Gap>,
    failure: Option<Failure>,
    scratch: Vec<u8>,
    /// Decompressed bytes returned by `read`, less those retracted.
    produced: u64,
    /// Where recent members start.
    starts: Starts,
    /// With [`GzMembers::log_starts`]: the changes to `starts` not taken yet.
    start_ops: Option<Vec<StartOp>>,
}

/// Parses a gzip member header at the start of `b`: `Ok(Some(len))`,
/// `Ok(None)` if more bytes are needed, `Err(reason)` if it is not one.
fn parse_header(b: &[u8]) -> Result<Option<usize>, &'static str> {
    const WANT: [(u8, &str); 3] = [
        (0x1f, "bad gzip magic"),
        (0x8b, "bad gzip magic"),
        (8, "unknown gzip compression method"),
    ];
    for (i, (want, why)) in WANT.iter().enumerate() {
        if b.len() > i && b[i] != *want {
            return Err(why);
        }
    }
    if b.len() > 3 && b[3] & 0xe0 != 0 {
        return Err("reserved gzip header flags set");
    }
    if b.len() < 10 {
        return Ok(None);
    }
    let flg = b[3];
    let mut p = 10;
    if flg & 4 != 0 {
        if b.len() < p + 2 {
            return Ok(None);
        }
        p += 2 + usize::from(u16::from_le_bytes([b[p], b[p + 1]]));
    }
    for bit in [8, 16] {
        if flg & bit != 0 {
            let rest = b.get(p..).unwrap_or_default();
            match memchr::memchr(0, &rest[..rest.len().min(MAX_NAME)]) {
                Some(i) => p += i + 1,
                None if rest.len() >= MAX_NAME => return Err("gzip header name too long"),
                None => return Ok(None),
            }
        }
    }
    if flg & 2 != 0 {
        p += 2;
    }
    Ok((b.len() >= p).then_some(p))
}

fn le32(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

impl<R: Read> GzMembers<R> {
    /// A decoder over `inner`; with `keep > 0` the first `keep` compressed
    /// bytes of a skipped span travel in its [`Gap`].
    pub(crate) fn new(inner: R, keep: usize) -> Self {
        Self {
            inner,
            buf: Vec::new(),
            start: 0,
            pos: 0,
            end: 0,
            eof: false,
            state: State::Header,
            member: Member::default(),
            inflate: Decompress::new(false),
            crc: Crc::new(),
            keep,
            head: Vec::new(),
            gap: None,
            failure: None,
            scratch: Vec::new(),
            produced: 0,
            starts: Starts::default(),
            start_ops: None,
        }
    }

    /// The member the decompressed byte at `offset` came from, if it is
    /// still remembered (see [`GzMembers::forget_before`]).
    pub(crate) fn member_of(&self, offset: u64) -> Option<MemberPos> {
        self.starts.member_of(offset)
    }

    /// Forgets the members that end at or before decompressed `offset`
    /// (the one holding `offset` is kept).
    pub(crate) fn forget_before(&mut self, offset: u64) {
        self.starts.forget_before(offset);
    }

    /// Logs every change to the member starts from now on, for
    /// [`GzMembers::take_start_ops`].
    pub(crate) fn log_starts(&mut self) {
        self.start_ops = Some(Vec::new());
    }

    /// The changes to the member starts since the last call (with
    /// [`GzMembers::log_starts`]), oldest first.
    pub(crate) fn take_start_ops(&mut self) -> Vec<StartOp> {
        self.start_ops
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// Decompressed bytes returned by `read` that are not yet verified
    /// (the current member's output, unless it passed [`HOLD`]).
    pub(crate) fn tentative(&self) -> u64 {
        if self.member.big { 0 } else { self.member.out }
    }

    /// The gap found by the last `read`, if any (taken once). While one is
    /// pending `read` returns 0 without meaning the end.
    pub(crate) fn take_gap(&mut self) -> Option<Gap> {
        self.gap.take()
    }

    /// Why decoding ended, if it ended on a damaged member.
    pub(crate) fn failure(&self) -> Option<&Failure> {
        self.failure.as_ref()
    }

    fn abs(&self, i: usize) -> u64 {
        self.start + i as u64
    }

    /// Where the buffer may be cut during normal decoding.
    fn pin(&self) -> u64 {
        self.member
            .start
            .max(self.abs(self.pos).saturating_sub(BEHIND))
    }

    /// Reads more compressed bytes, first dropping those before `pin` if
    /// the buffer is full. False at the end of the input.
    fn fill(&mut self, pin: u64) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        if self.buf.len() - self.end < READ_CHUNK / 2 {
            let drop = (pin.saturating_sub(self.start) as usize).min(self.end);
            if self.keep > 0 {
                let (from, to) = (self.start, self.start + drop as u64);
                let lo = from.max(self.member.start + self.head.len() as u64);
                let hi = to.min(self.member.start + self.keep as u64);
                if lo < hi && lo == self.member.start + self.head.len() as u64 {
                    let a = (lo - from) as usize;
                    self.head
                        .extend_from_slice(&self.buf[a..a + (hi - lo) as usize]);
                }
            }
            self.buf.copy_within(drop..self.end, 0);
            self.end -= drop;
            self.pos = self.pos.saturating_sub(drop);
            self.start += drop as u64;
            if self.buf.len() - self.end < READ_CHUNK / 2 {
                let len = (self.buf.len() * 2).max(4 * READ_CHUNK);
                self.buf.resize(len, 0);
            }
        }
        loop {
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(k) => {
                    self.end += k;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Makes at least `n` bytes from compressed offset `at` available
    /// (keeping the buffer from `at`). False if the input ends first.
    fn need(&mut self, at: u64, n: u64) -> io::Result<bool> {
        while self.abs(self.end) < at + n {
            if !self.fill(at)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// True if a member that inflates starts at compressed offset `c`.
    fn trial(&mut self, c: u64) -> io::Result<bool> {
        let hlen = loop {
            let o = (c - self.start) as usize;
            match parse_header(&self.buf[o..self.end]) {
                Ok(Some(l)) => break l as u64,
                Ok(None) if self.fill(c)? => {}
                _ => return Ok(false),
            }
        };
        let mut d = Decompress::new(false);
        let mut crc = Crc::new();
        self.scratch.resize(READ_CHUNK, 0);
        let mut at = c + hlen;
        loop {
            let o = (at - self.start) as usize;
            let (bi, bo) = (d.total_in(), d.total_out());
            let res = d.decompress(
                &self.buf[o..self.end],
                &mut self.scratch,
                FlushDecompress::None,
            );
            let made = (d.total_out() - bo) as usize;
            at += d.total_in() - bi;
            crc.update(&self.scratch[..made]);
            match res {
                Err(_) => return Ok(false),
                Ok(Status::StreamEnd) => {
                    if !self.need(c, at - c + 8)? {
                        return Ok(false);
                    }
                    let t = &self.buf[(at - self.start) as usize..];
                    return Ok(le32(t) == crc.sum() && le32(&t[4..]) == d.total_out() as u32);
                }
                Ok(_) if d.total_in() >= TRIAL || d.total_out() >= TRIAL => return Ok(true),
                Ok(_) if d.total_in() == bi && made == 0 && !self.fill(c)? => return Ok(false),
                Ok(_) => {}
            }
        }
    }

    /// Finds the next member after the one starting at `s`, whose decoding
    /// failed at `at`: candidates from `s + 1`, or from `at - BEHIND` for
    /// a longer member (the bytes kept; the same for any read sizes).
    fn resync(&mut self, s: u64, at: u64) -> io::Result<Option<u64>> {
        let mut p = (s + 1).max(at.saturating_sub(BEHIND)).max(self.start);
        loop {
            if !self.need(p, 4)? {
                return Ok(None);
            }
            let o = (p - self.start) as usize;
            let Some(i) = memchr::memchr(0x1f, &self.buf[o..self.end]) else {
                p = self.abs(self.end);
                continue;
            };
            let c = p + i as u64;
            if !self.need(c, 4)? {
                return Ok(None);
            }
            let o = (c - self.start) as usize;
            let b = &self.buf[o..o + 4];
            if b[1] == 0x8b && b[2] == 8 && b[3] & 0xe0 == 0 && self.trial(c)? {
                return Ok(Some(c));
            }
            p = c + 1;
        }
    }

    /// The current member is damaged: skip to the next one (a [`Gap`]) or
    /// end for good (a [`Failure`]).
    fn fail(&mut self, reason: String, truncated: bool) -> io::Result<()> {
        let s = self.member.start;
        let at = self.abs(self.pos);
        match self.resync(s, at)? {
            Some(c) => {
                let mut kept = std::mem::take(&mut self.head);
                let from = s + kept.len() as u64;
                let upto = c.min(s + self.keep as u64);
                if self.keep > 0 && from >= self.start && from < upto {
                    let a = (from - self.start) as usize;
                    kept.extend_from_slice(&self.buf[a..a + (upto - from) as usize]);
                }
                let retract = self.tentative();
                self.produced -= retract;
                if retract == self.member.out
                    && self.starts.0.back().is_some_and(|m| m.compressed == s)
                {
                    // The damaged member's output is dropped: so is its start.
                    self.starts.apply(StartOp::PopBack);
                    if let Some(log) = &mut self.start_ops {
                        log.push(StartOp::PopBack);
                    }
                }
                self.gap = Some(Gap {
                    member_offset: s,
                    skipped: c - s,
                    retract,
                    reason,
                    kept_truncated: (kept.len() as u64) < c - s,
                    kept: (self.keep > 0).then_some(kept),
                });
                self.pos = (c - self.start) as usize;
                self.member = Member {
                    start: c,
                    index: self.member.index + 1,
                    ..Member::default()
                };
                self.state = State::Header;
            }
            None => {
                self.failure = Some(Failure {
                    member_offset: s,
                    at,
                    truncated,
                    reason,
                    one_stream: self.member.index == 0,
                });
                self.member.big = true;
                self.state = State::Failed;
            }
        }
        Ok(())
    }

    fn failure_error(&self) -> io::Error {
        match &self.failure {
            Some(f) if f.truncated => {
                io::Error::new(io::ErrorKind::UnexpectedEof, f.reason.clone())
            }
            Some(f) => io::Error::new(io::ErrorKind::InvalidData, f.reason.clone()),
            None => io::Error::other("gzip decoding failed"),
        }
    }

    /// Parses the next header: true when decoding of the body can start.
    fn header(&mut self) -> io::Result<()> {
        match parse_header(&self.buf[self.pos..self.end]) {
            Ok(Some(len)) => {
                let at = MemberPos {
                    compressed: self.member.start,
                    decompressed: self.produced,
                };
                self.starts.push(at);
                if let Some(log) = &mut self.start_ops {
                    log.push(StartOp::Push(at));
                }
                self.pos += len;
                self.inflate.reset(false);
                self.crc.reset();
                self.state = State::Body;
            }
            Ok(None) => {
                if !self.fill(self.pin())? {
                    if self.pos == self.end && self.member.index > 0 {
                        self.state = State::Done;
                    } else {
                        self.fail("input ends inside a gzip header".into(), true)?;
                    }
                }
            }
            Err(why) => self.fail(why.into(), false)?,
        }
        Ok(())
    }

    /// Checks the trailer of the member just inflated.
    fn trailer(&mut self) -> io::Result<()> {
        if self.end - self.pos < 8 {
            if !self.fill(self.pin())? {
                self.fail("input ends inside a gzip trailer".into(), true)?;
            }
            return Ok(());
        }
        let t = &self.buf[self.pos..self.pos + 8];
        if le32(t) != self.crc.sum() {
            self.fail("gzip member CRC mismatch".into(), false)
        } else if le32(&t[4..]) != self.member.out as u32 {
            self.fail("gzip member length mismatch".into(), false)
        } else {
            self.pos += 8;
            self.member = Member {
                start: self.abs(self.pos),
                index: self.member.index + 1,
                ..Member::default()
            };
            self.head.clear();
            self.state = State::Header;
            Ok(())
        }
    }

    /// Inflates into `dst[*n..]`; returns true when `read` should return.
    fn body(&mut self, dst: &mut [u8], n: &mut usize) -> io::Result<bool> {
        let (bi, bo) = (self.inflate.total_in(), self.inflate.total_out());
        let res = self.inflate.decompress(
            &self.buf[self.pos..self.end],
            &mut dst[*n..],
            FlushDecompress::None,
        );
        let used = (self.inflate.total_in() - bi) as usize;
        let made = (self.inflate.total_out() - bo) as usize;
        self.crc.update(&dst[*n..*n + made]);
        *n += made;
        self.pos += used;
        self.member.out += made as u64;
        self.produced += made as u64;
        self.member.big |= self.member.out > HOLD;
        match res {
            Err(e) => self.fail(format!("corrupt deflate data: {e}"), false)?,
            Ok(Status::StreamEnd) => self.state = State::Trailer,
            Ok(_) if *n == dst.len() => return Ok(true),
            Ok(_) if used == 0 && made == 0 && !self.fill(self.pin())? => {
                self.fail("input ends inside a gzip member".into(), true)?;
            }
            Ok(_) => {}
        }
        Ok(false)
    }
}

impl<R: Read> Read for GzMembers<R> {
    fn read(&mut self, dst: &mut [u8]) -> io::Result<usize> {
        let mut n = 0;
        while !dst.is_empty() && self.gap.is_none() {
            match self.state {
                State::Done => break,
                State::Failed if n > 0 => break,
                State::Failed => return Err(self.failure_error()),
                State::Header => self.header()?,
                State::Trailer => self.trailer()?,
                State::Body => {
                    if self.body(dst, &mut n)? {
                        break;
                    }
                }
            }
        }
        Ok(n)
    }
}
