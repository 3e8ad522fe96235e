//! `sieve-index reorder`: an index written again in recursive-graph-
//! bisection order holds the same documents with the same fields, terms,
//! frequencies, positions and field lengths; it gives the same runs, byte
//! for byte (ties are broken by docid, never by index order); its order is
//! the same for any thread count; and it is refused where input order is
//! assumed. An index in spam order (`--by-spam`) has each segment's
//! documents by spam percentile, highest first, and gives the same runs
//! and sweeps. With `--drop-band-keys` the band keys are left out and the
//! near-duplicate clusters kept. A reorder killed part way is resumed and
//! writes the same index; one that fails leaves nothing behind.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use tantivy::postings::Postings as _;
use tantivy::schema::FieldType;
use tantivy::schema::document::Document as _;
use tantivy::{DocSet, Index, TantivyDocument};

use crate::util::{Dir, fails, fixture, ok, repo_root};

/// Every document of the index in `dir`, keyed by docid: its stored fields,
/// every fast value, the field-length codes and, per analysed field, each
/// term with its frequency and positions. Also the docids in index order.
fn contents(dir: &Path) -> (BTreeMap<String, Vec<String>>, Vec<String>) {
    let index = Index::open_in_dir(dir).expect("open index");
    let schema = index.schema();
    let searcher = index.reader().expect("reader").searcher();
    let mut docs: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut order = Vec::new();
    for seg in searcher.segment_readers() {
        let store = seg.get_store_reader(1).expect("store");
        let ids = sieve_format::index::docid_column(seg, dir).expect("docid column");
        let mut names = Vec::new();
        for doc in 0..seg.max_doc() {
            let mut docid = String::new();
            sieve_format::index::read_docid(&ids, doc, &mut docid).expect("docid");
            let d: TantivyDocument = store.get(doc).expect("stored doc");
            let mut lines = vec![format!("stored {}", d.to_json(&schema))];
            lines.extend(fast_and_norms(seg, &schema, doc));
            assert!(
                docs.insert(docid.clone(), lines).is_none(),
                "docid {docid} twice"
            );
            order.push(docid.clone());
            names.push(docid);
        }
        for (field, entry) in schema.fields() {
            let Some(opts) = entry.field_type().get_index_record_option() else {
                continue;
            };
            if !opts.has_freq() {
                continue;
            }
            let inv = seg.inverted_index(field).expect("inverted index");
            let mut stream = inv.terms().stream().expect("terms");
            while stream.advance() {
                let mut p = inv
                    .read_postings_from_terminfo(stream.value(), opts)
                    .expect("postings");
                let term = String::from_utf8_lossy(stream.key()).into_owned();
                while p.doc() != tantivy::TERMINATED {
                    let mut pos = Vec::new();
                    p.positions(&mut pos);
                    let line = format!("{} {term} x{} {pos:?}", entry.name(), p.term_freq());
                    docs.get_mut(&names[p.doc() as usize]).unwrap().push(line);
                    p.advance();
                }
            }
        }
    }
    for lines in docs.values_mut() {
        lines.sort();
    }
    (docs, order)
}

/// The fast values and field-length codes of document `doc`.
fn fast_and_norms(
    seg: &tantivy::SegmentReader,
    schema: &tantivy::schema::Schema,
    doc: u32,
) -> Vec<String> {
    let ff = seg.fast_fields();
    let mut lines = Vec::new();
    for (field, entry) in schema.fields() {
        let name = entry.name();
        if entry.is_fast() {
            let v = match entry.field_type() {
                FieldType::U64(_) => {
                    format!(
                        "{:?}",
                        ff.u64(name)
                            .unwrap()
                            .values_for_doc(doc)
                            .collect::<Vec<_>>()
                    )
                }
                FieldType::Bool(_) => format!("{:?}", ff.bool(name).unwrap().first(doc)),
                FieldType::Str(_) => {
                    let col = ff.str(name).unwrap().unwrap();
                    let mut s = String::new();
                    for ord in col.term_ords(doc) {
                        col.ord_to_str(ord, &mut s).unwrap();
                        s.push('|');
                    }
                    s
                }
                other => panic!("unexpected fast field type {other:?}"),
            };
            lines.push(format!("fast {name} {v}"));
        }
        if entry.has_fieldnorms() {
            let norms = seg.get_fieldnorms_reader(field).expect("norms");
            lines.push(format!("norm {name} {}", norms.fieldnorm_id(doc)));
        }
    }
    lines
}

fn build(dir: &Dir, name: &str, extra: &[&str]) -> PathBuf {
    let ix = dir.join(name);
    ok(dir
        .cmd("sieve-index")
        .args(["build", "--threads", "2", "--input"])
        .arg(fixture("cacm/cacm.trec.gz"))
        .arg("--index")
        .arg(&ix)
        .args(extra));
    ix
}

fn reorder(dir: &Dir, input: &Path, name: &str, threads: &str) -> PathBuf {
    reorder_with(dir, input, name, &["--threads", threads])
}

fn reorder_with(dir: &Dir, input: &Path, name: &str, extra: &[&str]) -> PathBuf {
    let out = dir.join(name);
    ok(&mut reorder_cmd(dir, input, &out, extra));
    out
}

/// `sieve-index reorder EXTRA --index INPUT --output-dir OUTPUT`.
fn reorder_cmd(dir: &Dir, input: &Path, output: &Path, extra: &[&str]) -> std::process::Command {
    let mut c = dir.cmd("sieve-index");
    c.arg("reorder")
        .args(extra)
        .arg("--index")
        .arg(input)
        .arg("--output-dir")
        .arg(output);
    c
}

/// The `sweep` of `index` over five spam thresholds, with and without
/// filtered statistics: its run files, by name, and its `sweep.tsv`.
fn sweep_runs(dir: &Dir, index: &Path, name: &str) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    for stats in ["full", "filtered"] {
        let out = dir.join(&format!("{name}-{stats}"));
        ok(dir
            .cmd("sieve-search")
            .args(["sweep", "--runs", "--hits", "100", "--index"])
            .arg(index)
            .arg("--topics")
            .arg(repo_root().join("topics/topics.cacm.txt"))
            .arg("--qrels")
            .arg(fixture("eval/qrels.cacm.txt"))
            .args(["--min-spam-percentile", "10,30,50,70,90"])
            .args(["--collection-stats", stats, "--output-dir"])
            .arg(&out));
        files.insert(
            format!("{stats}/sweep.tsv"),
            std::fs::read_to_string(out.join("sweep.tsv")).unwrap(),
        );
        for e in std::fs::read_dir(out.join("runs")).unwrap() {
            let p = e.unwrap().path();
            let key = format!("{stats}/{}", p.file_name().unwrap().to_string_lossy());
            files.insert(key, std::fs::read_to_string(&p).unwrap());
        }
    }
    files
}

/// The manifest (`sieve.json`) of the index in `dir`.
fn manifest(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("sieve.json")).unwrap()).unwrap()
}

/// `merge` of shards `a` and `b`, which must fail and leave no merged
/// index: its error output.
fn merge_refused(dir: &Dir, a: &Path, b: &Path) -> String {
    let merged = dir.join("merged");
    let e = fails(
        dir.cmd("sieve-index")
            .args(["merge", "--shards"])
            .arg(a)
            .arg(b)
            .arg("--index")
            .arg(&merged),
    );
    assert!(
        !merged.exists(),
        "a refused merge left {}",
        merged.display()
    );
    String::from_utf8_lossy(&e.stderr).into_owned()
}

fn run(dir: &Dir, ix: &Path, out: &str, extra: &[&str]) -> String {
    let path = dir.join(out);
    ok(dir
        .cmd("sieve-search")
        .args(["run", "--index"])
        .arg(ix)
        .arg("--topics")
        .arg(repo_root().join("topics/topics.cacm.txt"))
        .args(["--hits", "100", "--output"])
        .arg(&path)
        .args(extra));
    std::fs::read_to_string(path).unwrap()
}

sieve_test!(
    a_reordered_index_holds_the_same_documents_and_gives_the_same_runs,
    |dir| {
        let spam = fixture("spam/made-up-cacm-spam.txt");
        let spam = spam.to_str().unwrap();
        let ix = build(
            &dir,
            "cacm",
            &["--positions", "--docvectors", "--spam", spam],
        );
        let one = reorder(&dir, &ix, "bp1", "1");
        let three = reorder(&dir, &ix, "bp3", "3");
        let (before, input_order) = contents(&ix);
        let (after, bp_order) = contents(&one);
        assert_eq!(before.len(), 3204);
        assert!(before == after, "the reordered index holds other contents");
        assert_ne!(input_order, bp_order, "reordering kept the input order");
        assert_eq!(
            bp_order,
            contents(&three).1,
            "another order on 3 threads than on 1"
        );

        assert_eq!(manifest(&one)["order"]["kind"], "bp");
        assert!(manifest(&ix).get("order").is_none());
        ok(dir.cmd("sieve-index").args(["verify", "--index"]).arg(&one));

        for (k, extra) in [
            &[][..],
            &["--k1", "1.2", "--b", "0.75"],
            &["--model", "qld"],
            &["--sdm"],
            &["--feedback", "rm3"],
            &["--drop-near-duplicates"],
            &["--min-spam-percentile", "70"],
            &[
                "--min-spam-percentile",
                "50",
                "--collection-stats",
                "filtered",
            ],
            &["--max-invalid-456-per-kb", "0", "--drop-near-duplicates"],
        ]
        .iter()
        .enumerate()
        {
            let a = run(&dir, &ix, &format!("in{k}.run"), extra);
            let b = run(&dir, &one, &format!("bp{k}.run"), extra);
            assert!(
                a.lines().count() > 1000,
                "{extra:?}: a run of {} lines",
                a.lines().count()
            );
            // Ties are broken by docid before the cut, so not even the order
            // of tied documents may change.
            assert!(a == b, "{extra:?}: another run once reordered");
        }
    }
);

sieve_test!(reorder_is_refused_where_input_order_is_assumed, |dir| {
    let ix = build(&dir, "cacm", &[]);
    let bp = reorder(&dir, &ix, "bp", "2");
    // Without positions, the body is written again from frequencies alone.
    assert!(
        contents(&ix).0 == contents(&bp).0,
        "other contents without positions"
    );
    // The output must not exist; the input is left as it was.
    let e = fails(&mut reorder_cmd(&dir, &ix, &bp, &[]));
    assert!(String::from_utf8_lossy(&e.stderr).contains("already exists"));
    // A reordered index is not resumed.
    let e = fails(
        dir.cmd("sieve-index")
            .args(["build", "--resume", "--input"])
            .arg(fixture("cacm/cacm.trec.gz"))
            .arg("--index")
            .arg(&bp),
    );
    let err = String::from_utf8_lossy(&e.stderr);
    assert!(err.contains("reordered"), "{err}");
    // Shards merge only with shards of the same order.
    let err = merge_refused(&dir, &ix, &bp);
    assert!(err.contains("document order"), "{err}");
    // A killed reorder's temporary directory (its process gone) is removed
    // by the next reorder to the same output; a live one's is left.
    let dead = dir.join(".bp3.reorder-tmp-4194305-1");
    let live = dir.join(&format!(".bp3.reorder-tmp-{}-1", std::process::id()));
    for d in [&dead, &live] {
        std::fs::create_dir_all(d).unwrap();
        std::fs::write(d.join("meta.json"), b"{}").unwrap();
    }
    reorder(&dir, &ix, "bp3", "1");
    assert!(!dead.exists(), "an abandoned temporary directory was left");
    assert!(live.exists(), "a running reorder's directory was removed");
    // Two reordered shards do merge, and the merge says their order.
    let bp2 = reorder(&dir, &ix, "bp2", "1");
    let merged = dir.join("merged-bp");
    ok(dir
        .cmd("sieve-index")
        .args(["merge", "--shards"])
        .arg(&bp)
        .arg(&bp2)
        .arg("--index")
        .arg(&merged));
    assert_eq!(manifest(&merged)["order"]["kind"], "bp");
});

sieve_test!(
    an_index_in_spam_order_gives_the_same_runs_and_sweeps,
    |dir| {
        // The made-up scores without every tenth document's: those are
        // unscored.
        let scores = std::fs::read_to_string(fixture("spam/made-up-cacm-spam.txt")).unwrap();
        let kept: String = scores
            .lines()
            .enumerate()
            .filter(|(i, _)| i % 10 != 0)
            .map(|(_, l)| format!("{l}\n"))
            .collect();
        let spam = dir.write("spam.txt", kept.as_bytes());
        let ix = build(&dir, "cacm", &["--spam", spam.to_str().unwrap()]);
        let by_spam = reorder_with(&dir, &ix, "spam", &["--by-spam", "--threads", "2"]);
        let (before, _) = contents(&ix);
        let (after, order) = contents(&by_spam);
        assert!(
            before == after,
            "the index in spam order holds other contents"
        );
        // Spam percentile, highest first, unscored (255) before all, per
        // segment (one here: CACM is one segment).
        let spam_of = |docid: &String| -> u64 {
            let line = after[docid]
                .iter()
                .find(|l| l.starts_with("fast spam "))
                .unwrap();
            line["fast spam [".len()..line.len() - 1].parse().unwrap()
        };
        let values: Vec<u64> = order.iter().map(spam_of).collect();
        assert!(values.windows(2).all(|w| w[0] >= w[1]), "not in spam order");
        let unscored = values.iter().take_while(|&&v| v == 255).count();
        assert_eq!(unscored, 321, "the unscored documents are not first");
        assert!(
            values.first() != values.last(),
            "one spam value only: the fixture cannot show the order"
        );
        let m = manifest(&by_spam);
        assert_eq!(m["order"]["kind"], "bp");
        assert_eq!(m["order"]["by_spam"], true);
        ok(dir
            .cmd("sieve-index")
            .args(["verify", "--index"])
            .arg(&by_spam));
        for (k, extra) in [
            &["--min-spam-percentile", "70"][..],
            &[
                "--min-spam-percentile",
                "30",
                "--collection-stats",
                "filtered",
            ],
        ]
        .iter()
        .enumerate()
        {
            let a = run(&dir, &ix, &format!("in{k}.run"), extra);
            let b = run(&dir, &by_spam, &format!("spam{k}.run"), extra);
            assert!(a.lines().count() > 1000, "{extra:?}: a short run");
            assert!(a == b, "{extra:?}: another run in spam order");
        }
        let a = sweep_runs(&dir, &ix, "sweep-in");
        let b = sweep_runs(&dir, &by_spam, "sweep-spam");
        assert_eq!(a.len(), 14, "{:?}", a.keys());
        for (name, text) in &a {
            assert!(
                b.get(name) == Some(text),
                "{name}: another sweep in spam order"
            );
        }
    }
);

/// Every clustered document of the index in `dir` with its cluster's
/// representative, in docid order.
fn clusters(dir: &Path) -> Vec<(String, String)> {
    let mut all = Vec::new();
    sieve_ingest::dedup::for_each_clustered_doc(dir, |d, rep| {
        all.push((d.to_string(), rep.to_string()));
    })
    .unwrap();
    all.sort();
    all
}

/// The bytes of the files of `dir` whose names end with `ext`.
fn bytes_of(dir: &Path, ext: &str) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(ext))
        .map(|p| p.metadata().unwrap().len())
        .sum()
}

sieve_test!(
    dropping_band_keys_keeps_the_clusters_and_refuses_a_merge,
    |dir| {
        // CACM and a copy of its first 300 documents under other docids:
        // near-duplicate clusters to carry over.
        let mut text = String::new();
        std::io::Read::read_to_string(
            &mut flate2::read::GzDecoder::new(
                std::fs::File::open(fixture("cacm/cacm.trec.gz")).unwrap(),
            ),
            &mut text,
        )
        .unwrap();
        let copies: String = text
            .split_inclusive("</DOC>")
            .take(300)
            .map(|d| d.replace("<DOCNO>CACM-", "<DOCNO>COPY-"))
            .collect();
        let copies = dir.write("copies.trec", copies.as_bytes());
        let ix = build(&dir, "cacm", &["--input", copies.to_str().unwrap()]);
        let meta = std::fs::read_to_string(ix.join("meta.json")).unwrap();
        assert!(
            meta.contains(r#""docstore_compression": "zstd""#),
            "the store of a new index is not zstd: {meta}"
        );
        let kept = reorder(&dir, &ix, "kept", "2");
        let dropped = reorder_with(&dir, &ix, "dropped", &["--drop-band-keys"]);
        // The same documents and fields but the band keys.
        let without_keys = |c: BTreeMap<String, Vec<String>>| -> BTreeMap<String, Vec<String>> {
            c.into_iter()
                .map(|(d, lines)| {
                    let rest = lines.into_iter().filter(|l| !l.starts_with("fast minhash"));
                    (d, rest.collect())
                })
                .collect()
        };
        let (before, _) = contents(&ix);
        let (after, _) = contents(&dropped);
        let keys = |c: &BTreeMap<String, Vec<String>>| {
            c.values()
                .flatten()
                .filter(|l| l.starts_with("fast minhash [") && *l != "fast minhash []")
                .count()
        };
        assert!(keys(&before) > 3000, "the build wrote no band keys");
        assert_eq!(keys(&after), 0, "band keys left in");
        assert!(
            without_keys(before) == without_keys(after),
            "other contents"
        );
        // The clusters are carried over, whether or not the keys are.
        let want = clusters(&ix);
        assert!(
            want.len() > 10,
            "CACM has {} clustered documents",
            want.len()
        );
        assert!(clusters(&kept) == want, "other clusters once reordered");
        assert!(
            clusters(&dropped) == want,
            "other clusters without the keys"
        );
        let seg_bytes = |d: &Path| bytes_of(d, ".fast");
        assert!(
            seg_bytes(&dropped) + 3504 * 120 < seg_bytes(&kept),
            "fast fields of {} bytes without the keys, {} with",
            seg_bytes(&dropped),
            seg_bytes(&kept)
        );
        assert_eq!(manifest(&dropped)["band_keys_dropped"], true);
        ok(dir
            .cmd("sieve-index")
            .args(["verify", "--index"])
            .arg(&dropped));
        for (k, extra) in [&[][..], &["--drop-near-duplicates"]].iter().enumerate() {
            let a = run(&dir, &ix, &format!("in{k}.run"), extra);
            let b = run(&dir, &dropped, &format!("dropped{k}.run"), extra);
            assert!(a == b, "{extra:?}: another run without the band keys");
        }
        // Merging would cluster again from keys that are gone.
        let err = merge_refused(&dir, &kept, &dropped);
        assert!(err.contains("band keys were dropped"), "{err}");
        // One sentence, without the runs of blanks a broken line once left.
        assert!(
            err.contains("merge clusters all shards' documents again from their keys"),
            "{err}"
        );
    }
);

/// Reorders `input` into `output` in this process and stops it, as a kill
/// would, once `after` segments are written: the progress callback panics,
/// so nothing after that segment runs and the work directory stays.
fn interrupted_reorder(input: &Path, output: &Path, extra_iters: Option<usize>, after: usize) {
    let mut opts = sieve_ingest::reorder::ReorderOptions::new(input.into(), output.into());
    if let Some(iters) = extra_iters {
        opts.bp.max_iters = iters;
    }
    let stop = |p: sieve_ingest::reorder::Progress<'_>| {
        if let sieve_ingest::reorder::Progress::Segment { done, .. } = p {
            assert!(done < after, "stopped after segment {done}");
        }
    };
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        sieve_ingest::reorder::reorder(&opts, &stop)
    }));
    assert!(run.is_err(), "the reorder was not stopped");
    assert!(!output.exists(), "a stopped reorder left an output");
}

/// `sieve-index reorder` of `input` into `output`, which must succeed; its
/// stderr.
fn reorder_stderr(dir: &Dir, input: &Path, output: &Path, extra: &[&str]) -> String {
    let o = reorder_cmd(dir, input, output, extra).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{err}");
    err
}

/// `.NAME.reorder-tmp` beside `output`: the reorder's work directory.
fn work_dir(output: &Path) -> PathBuf {
    let name = output.file_name().unwrap().to_str().unwrap();
    output.with_file_name(format!(".{name}.reorder-tmp"))
}

fn meta_segments(dir: &Path) -> usize {
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("meta.json")).unwrap()).unwrap();
    meta["segments"].as_array().unwrap().len()
}

/// Every file name under `dir` (one level of subdirectories).
fn file_names(dir: &Path) -> Vec<String> {
    let mut names = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if e.path().is_dir() {
            for f in std::fs::read_dir(e.path()).unwrap().flatten() {
                names.push(format!("{name}/{}", f.file_name().to_string_lossy()));
            }
        } else {
            names.push(name);
        }
    }
    names.sort();
    names
}

sieve_test!(
    a_killed_reorder_is_resumed_and_writes_the_same_index,
    |dir| {
        // 18 files, a commit each and a merge cap below two files: 18
        // segments.
        let inputs = crate::determinism::many_inputs(&dir);
        let ix = dir.join("many");
        let mut c = dir.cmd("sieve-index");
        c.args(["build", "--commit-every-mb", "0", "--max-merge-docs", "40"]);
        for f in &inputs {
            c.arg("--input").arg(f);
        }
        ok(c.arg("--index").arg(&ix));
        assert_eq!(meta_segments(&ix), 18);
        let whole = reorder(&dir, &ix, "whole", "2");

        // Killed after 5 segments, with a sixth segment's files half
        // written (a made-up segment id).
        let out = dir.join("resumed");
        interrupted_reorder(&ix, &out, None, 5);
        let work = work_dir(&out);
        assert_eq!(meta_segments(&work), 5);
        let stray = "0123456789abcdef0123456789abcdef";
        std::fs::write(work.join(format!("{stray}.idx")), b"half").unwrap();
        std::fs::write(work.join(format!("dups/{stray}.dup.gz.tmp")), b"half").unwrap();
        let err = reorder_stderr(&dir, &ix, &out, &["--threads", "1"]);
        assert!(err.contains("resumed: 5 of 18 segments"), "{err}");
        assert!(
            !err.contains("segment 5 of 18"),
            "kept segments written again: {err}"
        );
        assert!(!work.exists(), "the work directory stayed");
        assert!(
            !file_names(&out)
                .iter()
                .any(|n| n.contains(stray) || n == "reorder.json"),
            "{:?}",
            file_names(&out)
        );
        assert!(
            contents(&out) == contents(&whole),
            "another index once resumed"
        );
        assert_eq!(manifest(&out), manifest(&whole));
        ok(dir.cmd("sieve-index").args(["verify", "--index"]).arg(&out));

        // Killed with other options: a reorder with the defaults starts
        // over, and writes what an uninterrupted one writes.
        let out = dir.join("other");
        interrupted_reorder(&ix, &out, Some(3), 4);
        let err = reorder_stderr(&dir, &ix, &out, &[]);
        assert!(
            err.contains("starting over") && err.contains("other options"),
            "{err}"
        );
        assert!(
            contents(&out) == contents(&whole),
            "another index once started over"
        );

        // A reorder to the same output under way (its work directory
        // locked) is refused, and nothing is changed.
        let out = dir.join("locked");
        let work = work_dir(&out);
        std::fs::create_dir(&work).unwrap();
        let lock = sieve_format::lock::DirLock::acquire(&work).unwrap();
        let o = fails(&mut reorder_cmd(&dir, &ix, &out, &[]));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("another reorder to this output is under way"),
            "{err}"
        );
        assert!(!out.exists());
        assert_eq!(file_names(&work), ["sieve.lock"]);
        drop(lock);
    }
);

sieve_test!(
    a_reorder_that_fails_leaves_neither_output_nor_work_directory,
    |dir| {
        let ix = build(&dir, "cacm", &[]);
        // A cluster column cut short: read only after the segment's
        // documents are written again, so the reorder fails part way.
        let dups: Vec<PathBuf> = std::fs::read_dir(ix.join("dups"))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        assert!(!dups.is_empty(), "the build wrote no cluster column");
        for f in &dups {
            let bytes = std::fs::read(f).unwrap();
            std::fs::write(f, &bytes[..bytes.len() / 2]).unwrap();
        }
        let out = dir.join("bp");
        let o = fails(&mut reorder_cmd(&dir, &ix, &out, &[]));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("dups"), "{err}");
        assert!(!out.exists(), "a failed reorder left an output");
        assert!(
            !work_dir(&out).exists(),
            "a failed reorder left its work directory"
        );
    }
);
