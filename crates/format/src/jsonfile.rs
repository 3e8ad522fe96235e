//! The JSON files of an index that sieve reads back (`sieve.json`,
//! `stats.json`), sealed: written through a temporary file renamed into
//! place, with a last member `"sieve_seal": {"crc32": ..., "bytes": ...}`
//! over the bytes before it ([`sieve_filters::sealed::seal_json`]), and
//! verified before they are parsed. The files stay plain JSON (`jq .`
//! reads them). A flipped byte, a cut, or a file re-serialised or edited
//! by hand is refused with an error naming the file and what differs; so
//! is a file written before seals existed (it has no seal: rebuild the
//! index).

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::{Error, Result};

/// Writes `value` as sealed pretty JSON to `path`, through a temporary
/// file renamed into place.
pub fn write_json(path: &Path, value: &impl Serialize) -> Result<()> {
    let tmp = tmp_path(path);
    let input = |detail: String| Error::Input {
        path: path.to_path_buf(),
        detail,
    };
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let text = serde_json::to_string_pretty(value).map_err(|e| input(e.to_string()))?;
    let sealed = sieve_filters::sealed::seal_json(&text).map_err(|e| input(e.to_string()))?;
    std::fs::write(&tmp, sealed).map_err(io)?;
    std::fs::rename(&tmp, path).map_err(io)
}

/// The temporary file [`write_json`] writes before renaming it to `path`
/// (`NAME.json.tmp` beside it): what a process killed in between leaves.
pub fn tmp_path(path: &Path) -> PathBuf {
    path.with_extension("json.tmp")
}

/// Whether `found`, the entries of a directory, is only the temporary file
/// of its `name` ([`tmp_path`]): what a command killed while writing its
/// first file (a manifest) leaves, which a rerun may take over.
pub fn only_unfinished(found: &[String], name: &str) -> bool {
    let tmp = tmp_path(Path::new(name));
    matches!(found, [f] if Path::new(f) == tmp)
}

/// Reads the sealed JSON file `path` written by [`write_json`]: the seal
/// is checked before anything is parsed.
pub fn read_json<T: DeserializeOwned>(path: &Path) -> Result<T> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let input = |detail: String| Error::Input {
        path: path.to_path_buf(),
        detail,
    };
    let object = sieve_filters::sealed::open_json(&bytes).map_err(|e| {
        input(format!(
            "damaged, edited or written before seals existed (rebuild the index): {e}"
        ))
    })?;
    serde_json::from_slice(&object).map_err(|e| input(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_json_round_trips_and_refuses_a_flipped_byte_or_a_rewrite() {
        let tmp = tempfile::tempdir().expect("tmp");
        let p = tmp.path().join("stats.json");
        let value = serde_json::json!({"files": [{"path": "a.warc", "indexed": 12}]});
        write_json(&p, &value).expect("write");
        let back: serde_json::Value = read_json(&p).expect("read");
        assert_eq!(back, value);
        let good = std::fs::read(&p).expect("bytes");
        let at = good.windows(2).position(|w| w == b"12").expect("value");
        let mut bad = good.clone();
        bad[at] = b'3';
        std::fs::write(&p, &bad).expect("write");
        let e = read_json::<serde_json::Value>(&p).expect_err("flipped");
        assert!(
            e.to_string().contains("stats.json") && e.to_string().contains("CRC-32"),
            "{e}"
        );
        // Re-serialised by another tool: the seal member survives, the bytes do not.
        let v: serde_json::Value = serde_json::from_slice(&good).expect("json");
        std::fs::write(&p, serde_json::to_vec(&v).expect("json")).expect("write");
        assert!(read_json::<serde_json::Value>(&p).is_err());
    }
}
