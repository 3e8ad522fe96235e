#!/usr/bin/env python3
"""Convert a SMART collection as shipped (Cranfield: cran.all.1400, cran.qry, cranqrel) to the
files Anserini reads, with exactly the text sieve's readers take from them.

    smart_to_anserini.py DOCS QUERIES QRELS OUT_DIR

Writes OUT_DIR/docs/docs.jsonl (JsonCollection: {"id", "contents"}), OUT_DIR/topics.tsv
(`id<TAB>query`, for -topicReader TsvInt) and OUT_DIR/qrels.txt (`qid 0 docid grade`).
The rules are sieve's, written again here independently of its Rust code:

* documents (crates/crawl/src/smart.rs): a record starts at a line `.I <id>`; docid is the
  value as written, trimmed; a line `.` + capital letter (alone or followed by whitespace)
  starts a field; title = the `.T` lines with line ends read as spaces, text = the `.W` lines;
  each stripped; `.A .B .X .K .N` are not indexed. contents = title, newline, text (sieve's
  `body` field: the title, then the text);
* queries (crates/searcher/src/topics/smart.rs): the id is the 1-based position of the record in the
  file (cranqrel numbers queries so), the query the `.W` text with whitespace collapsed;
* qrels: the three columns `qid docid grade` become `qid 0 docid grade`, grades unchanged
  (trec_eval counts grade > 0 as relevant; Cranfield's -1 is not).
"""
import json
import os
import re
import sys

MARK = re.compile(r"^\.([A-Z])(\s|$)")


def records(path):
    """Yields (the `.I` value, [(letter, line), ...]) per record, lines with their newline."""
    cur = None
    with open(path, "rb") as f:
        for raw in f:  # lines end at b"\n" only, as in sieve's readers
            line = raw.decode("utf-8")
            m = MARK.match(line)
            if m and m.group(1) == "I":
                if cur is not None:
                    yield cur
                cur = (line[2:].strip(), [])
                field = None
                continue
            if cur is None:
                if line.strip():
                    sys.exit(f"{path}: text before the first .I line: {line!r}")
                continue
            if m:
                field = m.group(1)
                line = line[2:]
            cur[1].append((field, line))
    if cur is not None:
        yield cur


def field(lines, letter):
    return "".join(l for f, l in lines if f == letter)


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    docs, queries, qrels, out = sys.argv[1:5]
    os.makedirs(os.path.join(out, "docs"), exist_ok=True)
    n = 0
    with open(os.path.join(out, "docs", "docs.jsonl"), "w", encoding="utf-8") as w:
        for docid, lines in records(docs):
            title = field(lines, "T").replace("\r", " ").replace("\n", " ").strip()
            text = field(lines, "W").strip()
            if not docid or not (title or text):
                # sieve skips it (no_docid / empty_body); Anserini would skip an empty
                # document too. Cranfield has two: 471 and 995.
                print(f"{docs}: record {docid!r} skipped: no id or no text", file=sys.stderr)
                continue
            w.write(json.dumps({"id": docid, "contents": title + "\n" + text}) + "\n")
            n += 1
    q = 0
    with open(os.path.join(out, "topics.tsv"), "w", encoding="utf-8") as w:
        for q, (_, lines) in enumerate(records(queries), 1):
            w.write(f"{q}\t{' '.join(field(lines, 'W').split())}\n")
    j = 0
    with open(qrels, encoding="utf-8") as f, open(os.path.join(out, "qrels.txt"), "w") as w:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            if len(parts) != 3:
                sys.exit(f"{qrels}: expected 3 columns: {line!r}")
            w.write(f"{parts[0]} 0 {parts[1]} {int(parts[2])}\n")
            j += 1
    print(f"{n} documents, {q} queries, {j} judgements -> {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
