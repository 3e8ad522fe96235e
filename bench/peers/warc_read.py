#!/usr/bin/env python3
"""Read WARC files with FastWARC (quirks mode) and warcio; print JSON per file and reader.

    warc_read.py FILE_OR_DIR [...] [--runs N] [--readers fastwarc warcio sieve warc-crate] [--table]

Each reader iterates every record, parses the HTTP headers of HTTP records and reads the whole
payload (so decompression and framing costs are paid). Per file and reader it reports:
records (all types), responses, payload_bytes, error (text of the exception that stopped the
reader, or null), seconds (median of --runs runs) and MB/s = file size on disk / seconds (MB =
10^6 bytes). FastWARC runs with quirks_mode=True (lenient, like Anserini's readers); warcio has no
lenient switch. `sieve` runs `sieve-index scan` ($SIEVE_INDEX, default target/release/sieve-index)
and `warc-crate` the `warc` crate 0.4 ($WARC_CRATE_READ, default
target/release/examples/warc_crate_read); both report their own in-process seconds. Prints one
JSON object per line, or a Markdown table with --table.
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


def json_lines_of(cmd):
    """Runs a reader of ours (a separate binary; one JSON line per file read): (its lines parsed,
    None), or ([], the error) when it failed or printed nothing."""
    import subprocess

    out = subprocess.run(cmd, capture_output=True, text=True)
    # Exit 3: a file not read to its end (docs/reliability.md, "Exit codes"); its JSON line
    # still counts what was recovered before the damage.
    if out.returncode not in (0, 3) or not out.stdout.strip():
        return [], f"exit {out.returncode}: {out.stderr.strip()[:200]}"
    return [json.loads(l) for l in out.stdout.splitlines() if l.strip()], None


def _external(cmd, path):
    """Runs a reader of ours on one file and returns its result and its own timing."""
    lines, err = json_lines_of(cmd + [path])
    if err is not None:
        return (0, 0, 0, err), None
    r = lines[-1]
    payload = r.get("payload_bytes", r.get("body_bytes", 0))
    return (r["records"], r["responses"], payload, r["error"]), r["seconds"]


def read_sieve(path):
    # `sieve-index scan`: every record, HTTP head parsed, body read (de-chunked, gunzipped).
    exe = os.environ.get("SIEVE_INDEX", "target/release/sieve-index")
    return _external([exe, "scan", "--input"], path)


def read_warc_crate(path):
    # The `warc` crate 0.4 (bench/examples/warc_crate_read.rs).
    exe = os.environ.get("WARC_CRATE_READ", "target/release/examples/warc_crate_read")
    return _external([exe], path)


READERS = {"fastwarc": read_fastwarc, "warcio": read_warcio_quiet}
# Readers in other processes report their own in-process seconds (process start-up excluded,
# as Python's interpreter start-up is excluded for the Python readers).
EXTERNAL = {"sieve": read_sieve, "warc-crate": read_warc_crate}


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
    ap.add_argument("--readers", nargs="+", default=list(READERS), choices=list(READERS) + list(EXTERNAL))
    ap.add_argument("--table", action="store_true")
    a = ap.parse_args()
    rows = []
    for path in expand(a.paths):
        size = os.path.getsize(path)
        for name in a.readers:
            times, result = [], None
            for _ in range(a.runs):
                if name in EXTERNAL:
                    result, secs = EXTERNAL[name](path)
                    times.append(secs if secs is not None else float("nan"))
                    continue
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
