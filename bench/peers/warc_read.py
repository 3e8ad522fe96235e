#!/usr/bin/env python3
"""Read WARC files with FastWARC (quirks mode) and warcio; print JSON per file and reader.

    warc_read.py FILE_OR_DIR [...] [--runs N] [--readers fastwarc warcio] [--table]

Each reader iterates every record, parses the HTTP headers of HTTP records and reads the whole
payload (so decompression and framing costs are paid). Per file and reader it reports:
records (all types), responses, payload_bytes, error (text of the exception that stopped the
reader, or null), seconds (median of --runs runs) and MB/s = file size on disk / seconds (MB =
10^6 bytes). FastWARC runs with quirks_mode=True (lenient, like Anserini's readers); warcio has no
lenient switch. Prints one JSON object per line, or a Markdown table with --table.
"""
import argparse
import contextlib
import io
import json
import os
import statistics
import time


def read_fastwarc(path):
    from fastwarc.warc import ArchiveIterator, WarcRecordType

    records = responses = payload = 0
    error = None
    try:
        with open(path, "rb") as f:
            for rec in ArchiveIterator(f, parse_http=True, quirks_mode=True, fsspec_args=False):
                records += 1
                if rec.record_type == WarcRecordType.response:
                    responses += 1
                payload += len(rec.reader.read())
    except Exception as e:  # the reader stopped: keep what it recovered
        error = " ".join(f"{type(e).__name__}: {e}".split())
    return records, responses, payload, error


def read_warcio(path):
    from warcio.archiveiterator import ArchiveIterator

    records = responses = payload = 0
    error = None
    try:
        with open(path, "rb") as f:
            for rec in ArchiveIterator(f):
                records += 1
                if rec.rec_type == "response":
                    responses += 1
                payload += len(rec.content_stream().read())
    except Exception as e:
        error = " ".join(f"{type(e).__name__}: {e}".split())
    return records, responses, payload, error


def read_warcio_quiet(path):
    # warcio prints framing warnings to stderr; keep them out of the output.
    with contextlib.redirect_stderr(io.StringIO()):
        return read_warcio(path)


READERS = {"fastwarc": read_fastwarc, "warcio": read_warcio_quiet}


def expand(paths):
    out = []
    for p in paths:
        if os.path.isdir(p):
            out += sorted(os.path.join(p, n) for n in os.listdir(p) if ".warc" in n and not n.endswith((".wat.gz", ".wet.gz")))
        else:
            out.append(p)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--readers", nargs="+", default=list(READERS), choices=list(READERS))
    ap.add_argument("--table", action="store_true")
    a = ap.parse_args()
    rows = []
    for path in expand(a.paths):
        size = os.path.getsize(path)
        for name in a.readers:
            times, result = [], None
            for _ in range(a.runs):
                t0 = time.perf_counter()
                result = READERS[name](path)
                times.append(time.perf_counter() - t0)
            records, responses, payload, error = result
            secs = statistics.median(times)
            row = {"file": os.path.basename(path), "bytes": size, "reader": name, "records": records,
                   "responses": responses, "payload_bytes": payload, "error": error, "runs": a.runs,
                   "seconds": round(secs, 6), "MB_per_s": round(size / 1e6 / secs, 2) if secs else None,
                   "records_per_s": round(records / secs, 1) if secs else None}
            rows.append(row)
            if not a.table:
                print(json.dumps(row), flush=True)
    if a.table:
        print("| file | MB | reader | records | responses | MB/s | records/s | error |")
        print("|---|---:|---|---:|---:|---:|---:|---|")
        for r in rows:
            err = (r["error"] or "")[:70].replace("|", "/")
            print(f"| {r['file']} | {r['bytes']/1e6:.2f} | {r['reader']} | {r['records']} | {r['responses']} | "
                  f"{r['MB_per_s']} | {r['records_per_s']} | {err} |")


if __name__ == "__main__":
    main()
