#!/usr/bin/env python3
"""Build a bench corpus by replicating the real ClueWeb09 samples with rewritten docids.

    make_corpus.py OUT_DIR [--size-mb 300] [--file-mb 25] [--framing crlf|raw]
                   [--docids shape|suffix] [--level 6] [--gzip record|stream] [SOURCE ...]

SOURCE files default to the ClueWeb09 samples in $SIEVE_SHARED_DATA/warc:
freequery__ClueWeb09_English_Sample.warc, freequery__ClueWeb09_Chinese_Sample.warc,
copycat__cw09-en0000-00.warc.gz and resiliparse__clueweb-quirk.warc.gz (252 responses, 4.7 MB
uncompressed). They are split leniently (ClueWeb09's own framing: LF header lines, Content-Length
running up to the next `WARC/` line, no record trailer), their warcinfo records are dropped, and
their response records are written again and again, replica r = 0, 1, 2, ... until the
uncompressed output reaches --size-mb (MB = 10^6 bytes; whole replicas, so it rounds up). Each replica changes only WARC headers:
  * WARC-TREC-ID: with --docids shape (default) the docid keeps the ClueWeb09 shape
    clueweb09-<lang><dir>-<file>-<rec>, with <dir> = 1000 + r (real ClueWeb09 directories stay
    below 1000, so no rewritten id equals a real one); with --docids suffix it becomes
    <original>-r<NNN>.
  * WARC-Record-ID: a UUID5 of (original record id, r), so record ids stay unique.
  * WARC-Warcinfo-ID: points at the warcinfo record of the output file.
Content-Length is recomputed from the block that is written (the block itself is copied byte for
byte, so it equals the source's declared length unless the source record was cut short).
Output: OUT_DIR/bench-NNNNN.warc.gz, each about --file-mb uncompressed, starting with one
warcinfo record, every record its own gzip member (--gzip record, the default: per-record gzip,
as Common Crawl and ClueWeb12 ship) or the whole file one gzip stream (--gzip stream, as the
raw ClueWeb09 head in copycat__cw09-en0000-00.warc.gz is). --framing crlf (default) writes WARC/0.18 records with CRLF header lines and the
standard CRLF CRLF trailer, which FastWARC, warcio and Anserini all read; --framing raw keeps the
ClueWeb09 quirk (LF header lines, no trailer). Also writes OUT_DIR/MANIFEST.json (sources, counts,
sizes, sha256 of each output file). Deterministic: the same arguments give the same bytes.
"""
import argparse
import gzip
import hashlib
import json
import os
import re
import sys
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from sievelib import shared_data  # noqa: E402

DEFAULT_SOURCES = [
    "freequery__ClueWeb09_English_Sample.warc",
    "freequery__ClueWeb09_Chinese_Sample.warc",
    "copycat__cw09-en0000-00.warc.gz",
    "resiliparse__clueweb-quirk.warc.gz",
]
NS = uuid.UUID("6f1c1c0e-5a53-4c8e-9d1e-7b8f5e0b2a11")


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)  # handles one member or many
    return data


def split_records(data, path):
    """Yield (headers: list[(name, value)], block: bytes) for each record, leniently."""
    pos = 0
    n = len(data)
    while True:
        while pos < n and data[pos] in b"\r\n":
            pos += 1
        if pos >= n:
            return
        if not data.startswith(b"WARC/", pos):
            nxt = data.find(b"\nWARC/", pos)
            if nxt < 0:
                return
            print(f"{path}: skipped {nxt + 1 - pos} bytes of garbage at offset {pos}", file=sys.stderr)
            pos = nxt + 1
            continue
        end = data.find(b"\n", pos)
        pos = end + 1
        headers = []
        while True:
            end = data.find(b"\n", pos)
            if end < 0:
                raise ValueError(f"{path}: header runs to end of file at offset {pos}")
            line = data[pos:end].rstrip(b"\r")
            pos = end + 1
            if not line:
                break
            name, _, value = line.partition(b":")
            headers.append((name.strip(), value.strip()))
        length = int(dict((k.lower(), v) for k, v in headers)[b"content-length"])
        block = data[pos:pos + length]
        pos += length
        yield headers, block


def header(headers, name):
    for k, v in headers:
        if k.lower() == name.lower():
            return v
    return None


def rewrite_docid(docid, r, style):
    if style == "suffix":
        return docid + b"-r%03d" % r
    m = re.fullmatch(rb"clueweb09-([a-z]{2})(\d{4})-(\d{2})-(\d{5})", docid)
    if not m:
        raise ValueError(f"not a ClueWeb09 docid: {docid!r}")
    return b"clueweb09-%s%04d-%s-%s" % (m.group(1), 1000 + r, m.group(3), m.group(4))


def serialise(headers, block, framing):
    eol = b"\r\n" if framing == "crlf" else b"\n"
    out = [b"WARC/0.18" + eol]
    for k, v in headers:
        if k.lower() == b"content-length":
            v = str(len(block)).encode()
        out.append(k + b": " + v + eol)
    out.append(eol)
    out.append(block)
    if framing == "crlf":
        out.append(b"\r\n\r\n")
    else:
        out.append(b"\n")  # ClueWeb09 files put at most one stray LF before the next record
    return b"".join(out)


def warcinfo(file_no, framing):
    rid = uuid.uuid5(NS, f"warcinfo-{file_no}")
    body = (b"software: sieve bench/peers/make_corpus.py\n"
            b"description: replicated ClueWeb09 samples with rewritten docids\n"
            b"format: WARC file version 0.18\n")
    headers = [(b"WARC-Type", b"warcinfo"), (b"WARC-Date", b"2009-03-01T00:00:00-0000"),
               (b"WARC-Record-ID", b"<urn:uuid:%s>" % str(rid).encode()),
               (b"Content-Type", b"application/warc-fields"), (b"Content-Length", b"0")]
    return rid, serialise(headers, body, framing)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("sources", nargs="*")
    ap.add_argument("--size-mb", type=float, default=300.0)
    ap.add_argument("--file-mb", type=float, default=25.0)
    ap.add_argument("--framing", choices=["crlf", "raw"], default="crlf")
    ap.add_argument("--docids", choices=["shape", "suffix"], default="shape")
    ap.add_argument("--level", type=int, default=6, help="gzip level")
    ap.add_argument("--gzip", choices=["record", "stream"], default="record")
    a = ap.parse_args()
    sources = a.sources
    if not sources:
        shared = shared_data()
        if shared is None:
            sys.exit("no SOURCE given and shared data not found (set SIEVE_SHARED_DATA)")
        sources = [os.path.join(shared, "warc", s) for s in DEFAULT_SOURCES]

    responses = []
    per_source = {}
    for path in sources:
        count = 0
        for headers, block in split_records(load(path), path):
            if header(headers, b"WARC-Type") != b"response" or header(headers, b"WARC-TREC-ID") is None:
                continue
            responses.append((headers, block))
            count += 1
        per_source[os.path.basename(path)] = count
    if not responses:
        sys.exit("no response records with WARC-TREC-ID in the sources")

    os.makedirs(a.out_dir, exist_ok=True)
    for old in os.listdir(a.out_dir):
        if old.startswith("bench-") and old.endswith(".warc.gz"):
            os.remove(os.path.join(a.out_dir, old))
    target = int(a.size_mb * 1e6)
    per_file = int(a.file_mb * 1e6)
    total_raw = docs = replica = file_no = 0
    files = []
    out = None
    file_raw = 0
    info_id = None

    handles = []  # underlying files, closed after the gzip stream that wraps them

    def close(f):
        f.close()
        handles[-1].close()

    def put(rec):
        out.write(gzip.compress(rec, compresslevel=a.level, mtime=0) if a.gzip == "record" else rec)

    def open_next():
        nonlocal out, file_raw, file_no, info_id
        if out:
            close(out)
        name = os.path.join(a.out_dir, f"bench-{file_no:05d}.warc.gz")
        files.append(name)
        file_no += 1
        raw = open(name, "wb")
        out = raw if a.gzip == "record" else gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=a.level, mtime=0)
        handles.append(raw)
        info_id, rec = warcinfo(file_no - 1, a.framing)
        put(rec)
        file_raw = len(rec)
        return len(rec)

    total_raw += open_next()
    while total_raw < target:
        for headers, block in responses:
            if file_raw >= per_file:
                total_raw += open_next()
            new = []
            for k, v in headers:
                lk = k.lower()
                if lk == b"warc-trec-id":
                    v = rewrite_docid(v, replica, a.docids)
                elif lk == b"warc-record-id":
                    v = b"<urn:uuid:%s>" % str(uuid.uuid5(NS, f"{v.decode('latin-1')}#{replica}")).encode()
                elif lk == b"warc-warcinfo-id":
                    v = b"<urn:uuid:%s>" % str(info_id).encode()
                new.append((k, v))
            rec = serialise(new, block, a.framing)
            put(rec)
            file_raw += len(rec)
            total_raw += len(rec)
            docs += 1
        replica += 1
    close(out)

    manifest = {
        "command": " ".join([os.path.basename(sys.argv[0])] + sys.argv[1:]),
        "sources": per_source, "replicas": replica, "docs": docs, "warcinfo_records": len(files),
        "uncompressed_bytes": total_raw, "framing": a.framing, "docids": a.docids, "gzip": a.gzip, "gzip_level": a.level,
        "files": [{"name": os.path.basename(f), "bytes": os.path.getsize(f),
                   "sha256": hashlib.sha256(open(f, "rb").read()).hexdigest()} for f in files],
    }
    manifest["compressed_bytes"] = sum(f["bytes"] for f in manifest["files"])
    with open(os.path.join(a.out_dir, "MANIFEST.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    print(json.dumps({k: v for k, v in manifest.items() if k != "files"}))


if __name__ == "__main__":
    main()
