//! Where an index's bytes go: every file of the index directory by kind
//! (tantivy's segment files by extension, sieve's sidecar directories and
//! JSON files by name), then inside the segments per field (tantivy's
//! `space_usage()`: term dictionary, postings, positions, fieldnorms and
//! fast fields, the fast fields split into column and dictionary), and the
//! document store per field as the values it holds before compression
//! (tantivy's serialisation: a 4-byte field id, a type byte, then 8 bytes
//! for a number or a length and the bytes for a text). Sizes in bytes and
//! bytes per document. `bench/index_size.sh` runs it.
//!
//! ```sh
//! cargo run --release -p sieve-bench --example index_size -- INDEX_DIR [--json]
//! ```

use std::path::Path;

use tantivy::schema::{OwnedValue, Value};
use tantivy::{Index, Searcher, TantivyDocument};

/// Bytes by row name, in the order rows are first added.
#[derive(Default)]
struct Table {
    rows: Vec<(String, u64)>,
}

impl Table {
    fn add(&mut self, name: &str, bytes: u64) {
        match self.rows.iter_mut().find(|(n, _)| n == name) {
            Some((_, b)) => *b += bytes,
            None => self.rows.push((name.to_string(), bytes)),
        }
    }

    fn total(&self) -> u64 {
        self.rows.iter().map(|(_, b)| b).sum()
    }

    fn print(&self, title: &str, docs: u64, json: &mut serde_json::Map<String, serde_json::Value>) {
        let total = self.total();
        println!("\n{title}\n| part | bytes | bytes/doc | share |\n|---|---:|---:|---:|");
        let mut obj = serde_json::Map::new();
        for (name, bytes) in &self.rows {
            println!(
                "| {name} | {bytes} | {:.1} | {:.1}% |",
                *bytes as f64 / docs.max(1) as f64,
                100.0 * *bytes as f64 / total.max(1) as f64
            );
            obj.insert(name.clone(), (*bytes).into());
        }
        println!(
            "| **total** | {total} | {:.1} | 100% |",
            total as f64 / docs.max(1) as f64
        );
        json.insert(title.to_string(), obj.into());
    }
}

/// The kind of a file of an index directory: a tantivy segment file by its
/// extension (`<segment>.<ext>`, deletes `<segment>.<n>.del`), a file in a
/// subdirectory by that directory, else its own name.
fn file_kind(rel: &Path) -> String {
    let mut parts = rel.components();
    let first = parts
        .next()
        .map(|c| c.as_os_str().to_string_lossy().to_string());
    let first = first.unwrap_or_default();
    if parts.next().is_some() {
        return format!("{first}/");
    }
    let pieces: Vec<&str> = first.split('.').collect();
    let is_segment = pieces.len() >= 2
        && pieces[0].len() == 32
        && pieces[0].bytes().all(|b| b.is_ascii_hexdigit());
    match (is_segment, pieces.last()) {
        (true, Some(ext)) => format!(".{ext}"),
        _ => first,
    }
}

/// Adds every file under `dir` (recursively) to `table` by [`file_kind`].
fn walk(root: &Path, dir: &Path, table: &mut Table) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let path = e.path();
        if e.file_type()?.is_dir() {
            walk(root, &path, table)?;
        } else {
            let rel = path.strip_prefix(root).unwrap_or(&path);
            table.add(&file_kind(rel), e.metadata()?.len());
        }
    }
    Ok(())
}

/// Per field, every part tantivy reports, summed over segments.
fn per_field(searcher: &Searcher) -> tantivy::Result<Table> {
    let usage = searcher.space_usage()?;
    let mut t = Table::default();
    for seg in usage.segments() {
        let parts = [
            ("term dictionary", seg.termdict()),
            ("postings", seg.postings()),
            ("positions", seg.positions()),
            ("fieldnorms", seg.fieldnorms()),
        ];
        for (part, fields) in parts {
            for f in fields.fields() {
                t.add(
                    &format!("{part}: {}", f.field_name()),
                    f.total().get_bytes(),
                );
            }
        }
        for f in seg.fast_fields().fields() {
            let name = f.field_name();
            let column = f.column_num_bytes().map_or(0, |b| b.get_bytes());
            let dict = f.dictionary_num_bytes().map_or(0, |b| b.get_bytes());
            let rest = f.total().get_bytes().saturating_sub(column + dict);
            t.add(&format!("fast column: {name}"), column + rest);
            if dict > 0 {
                t.add(&format!("fast dictionary: {name}"), dict);
            }
        }
        t.add(
            "store: compressed blocks",
            seg.store().data_usage().get_bytes(),
        );
        t.add(
            "store: block offsets",
            seg.store().offsets_usage().get_bytes(),
        );
        t.add("deletes", seg.deletes().get_bytes());
    }
    Ok(t)
}

/// The bytes tantivy's document store serialises for one value.
fn value_bytes(v: &OwnedValue) -> u64 {
    let body = match v {
        OwnedValue::Str(s) => s.len() as u64 + vint_len(s.len() as u64),
        OwnedValue::Bytes(b) => b.len() as u64 + vint_len(b.len() as u64),
        OwnedValue::PreTokStr(p) => p.text.len() as u64 + vint_len(p.text.len() as u64),
        OwnedValue::Bool(_) => 1,
        _ => 8,
    };
    4 + 1 + body
}

fn vint_len(mut n: u64) -> u64 {
    let mut len = 1;
    while n >= 128 {
        n >>= 7;
        len += 1;
    }
    len
}

/// The document store's values per field before compression, over every
/// document.
fn store_fields(searcher: &Searcher) -> tantivy::Result<Table> {
    let schema = searcher.schema();
    let mut t = Table::default();
    for seg in searcher.segment_readers() {
        let store = seg.get_store_reader(64)?;
        for doc in store.iter::<TantivyDocument>(seg.alive_bitset()) {
            let doc = doc?;
            t.add("(field count)", 1);
            for (field, value) in doc.field_values() {
                let owned: OwnedValue = value.as_value().into();
                t.add(schema.get_field_name(field), value_bytes(&owned));
            }
        }
    }
    Ok(t)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(dir) = args.iter().find(|a| !a.starts_with("--")) else {
        return Err("usage: index_size INDEX_DIR [--json]".into());
    };
    let dir = Path::new(dir);
    let index = Index::open_in_dir(dir)?;
    let searcher = index.reader()?.searcher();
    let docs = searcher.num_docs();
    println!("{}: {docs} documents", dir.display());
    let mut json = serde_json::Map::new();
    json.insert("docs".into(), docs.into());
    let mut files = Table::default();
    walk(dir, dir, &mut files)?;
    files.print("files by kind", docs, &mut json);
    per_field(&searcher)?.print("inside the segments, per field", docs, &mut json);
    store_fields(&searcher)?.print(
        "document store before compression, per field",
        docs,
        &mut json,
    );
    if args.iter().any(|a| a == "--json") {
        println!("{}", serde_json::Value::Object(json));
    }
    Ok(())
}
