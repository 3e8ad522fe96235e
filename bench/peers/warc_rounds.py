#!/usr/bin/env python3
"""Read a WARC corpus in interleaved rounds: FastWARC (quirks mode, in this process) and one or
more `sieve-index scan` binaries (one process per file, as warc_read.py runs them).

    warc_rounds.py [--one-process] DIR ROUNDS SIEVE_INDEX [SIEVE_INDEX ...]

With --one-process each sieve binary reads the whole corpus in one `scan` process, as FastWARC
reads every file in one Python process, and its seconds are the whole process's wall clock,
start-up and exit included (stricter than FastWARC's, which excludes the interpreter's start-up);
its CPU seconds are the child's user + system.

Each round reads every file once with each reader, one reader after the other, so a change in
the machine's load falls on all of them. Per reader it prints the median over rounds of the
corpus's total seconds (FastWARC: timed here; sieve: the in-process seconds `scan` reports,
process start-up excluded) as MB/s (file bytes on disk, MB = 10^6 bytes), and the median total CPU
seconds, user + system (FastWARC: this process around the reads; sieve: its child processes,
start-up included, about 3 ms per file), with the records read and the load average. One JSON
object on stdout, one progress line per round on stderr.
"""
import json
import os
import resource
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import warc_read  # noqa: E402


def cpu(who):
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


def scan_all(exe, files):
    """One `scan` process over every file: (whole-process wall seconds, records)."""
    t0 = time.perf_counter()
    lines, err = warc_read.json_lines_of([exe, "scan", "--input"] + files)
    secs = time.perf_counter() - t0
    if err is not None:
        sys.exit(f"{exe} scan: {err}")
    if len(lines) != len(files):
        sys.exit(f"{exe} scan: {len(lines)} result lines for {len(files)} files")
    return secs, sum(r["records"] for r in lines)


def main():
    args = sys.argv[1:]
    one_process = "--one-process" in args
    args = [a for a in args if a != "--one-process"]
    if len(args) < 3:
        sys.exit(__doc__)
    corpus, rounds, bins = args[0], int(args[1]), args[2:]
    files = warc_read.expand([corpus])
    size = sum(os.path.getsize(f) for f in files)
    res = {}
    load0 = os.getloadavg()

    def add(name, secs, cpus, records):
        r = res.setdefault(name, {"secs": [], "cpu": [], "records": records})
        r["secs"].append(secs)
        r["cpu"].append(cpus)

    for rd in range(rounds):
        secs, records, c0 = 0.0, 0, cpu(resource.RUSAGE_SELF)
        for f in files:
            t0 = time.perf_counter()
            out = warc_read.read_fastwarc(f)
            secs += time.perf_counter() - t0
            records += out[0]
        add("fastwarc", secs, cpu(resource.RUSAGE_SELF) - c0, records)
        for b in bins:
            os.environ["SIEVE_INDEX"] = b
            secs, records, c0 = 0.0, 0, cpu(resource.RUSAGE_CHILDREN)
            if one_process:
                secs, records = scan_all(b, files)
                add(b, secs, cpu(resource.RUSAGE_CHILDREN) - c0, records)
                continue
            for f in files:
                out, s = warc_read.read_sieve(f)
                secs += s if s is not None else float("nan")
                records += out[0]
            add(b, secs, cpu(resource.RUSAGE_CHILDREN) - c0, records)
        print(f"round {rd}: " + ", ".join(f"{os.path.basename(k)} {v['secs'][-1]:.2f} s, {v['cpu'][-1]:.2f} CPU s"
                                          for k, v in res.items()), file=sys.stderr, flush=True)
    out = {"corpus": corpus, "files": len(files), "one_process": one_process, "bytes": size, "rounds": rounds,
           "load_before": load0, "load_after": os.getloadavg(), "readers": {}}
    for k, v in res.items():
        ms, mc = statistics.median(v["secs"]), statistics.median(v["cpu"])
        out["readers"][k] = {"records": v["records"], "median_s": round(ms, 3), "MB_per_s": round(size / 1e6 / ms, 1),
                             "median_cpu_s": round(mc, 3), "MB_per_cpu_s": round(size / 1e6 / mc, 1),
                             "secs": [round(x, 3) for x in v["secs"]], "cpu": [round(x, 3) for x in v["cpu"]]}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
