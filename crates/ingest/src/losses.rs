//! Writing `losses.jsonl`: one JSON line per record not indexed, framing
//! anomaly or cap hit, with its file, offset and record id (see
//! [`crate::build`]).

use serde::Serialize;

use crate::options::Cap;

/// One line of `losses.jsonl`.
#[derive(Serialize)]
pub(crate) struct LossLine<'a> {
    pub(crate) file: &'a str,
    pub(crate) offset: u64,
    pub(crate) record_id: Option<&'a str>,
    pub(crate) reason: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) bytes: Option<u64>,
    /// For `"reason": "cap"`: which cap.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) cap: Option<&'a str>,
    /// For `"reason": "cap"`: whether the document was still indexed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) indexed: Option<bool>,
    /// For `"reason": "gzip_member"`: compressed offset of the damaged member.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) compressed_offset: Option<u64>,
    /// Why (`gzip_member`, `skipped_input`, `file_error`: the error that
    /// stopped reading the file; `malformed_line`: what was wrong;
    /// `bad_docid`: the rule broken, e.g. `whitespace: U+00A0 at byte 2`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) detail: Option<&'a str>,
    /// For `"reason": "duplicate_docid"`: the file of the copy kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) kept_file: Option<&'a str>,
    /// For `"reason": "duplicate_docid"`: the offset of the copy kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) kept_offset: Option<u64>,
}

impl<'a> LossLine<'a> {
    pub(crate) fn new(
        file: &'a str,
        offset: u64,
        record_id: Option<&'a str>,
        reason: &'a str,
    ) -> Self {
        LossLine {
            file,
            offset,
            record_id,
            reason,
            bytes: None,
            cap: None,
            indexed: None,
            compressed_offset: None,
            detail: None,
            kept_file: None,
            kept_offset: None,
        }
    }

    pub(crate) fn cap(
        file: &'a str,
        offset: u64,
        record_id: Option<&'a str>,
        cap: Cap,
        indexed: bool,
    ) -> Self {
        LossLine {
            cap: Some(cap.key()),
            indexed: Some(indexed),
            ..LossLine::new(file, offset, record_id, "cap")
        }
    }
}

/// The line of a file-level read error at `offset` (the file could not
/// be opened, or reading stopped there): `"reason":"file_error"`.
pub(crate) fn file_error<'a>(file: &'a str, offset: u64, detail: &'a str) -> LossLine<'a> {
    LossLine {
        detail: Some(detail),
        ..LossLine::new(file, offset, None, "file_error")
    }
}

/// Appends `line` and a newline to `log`.
pub(crate) fn log_loss(log: &mut Vec<u8>, line: &LossLine<'_>) {
    if serde_json::to_writer(&mut *log, line).is_ok() {
        log.push(b'\n');
    }
}
