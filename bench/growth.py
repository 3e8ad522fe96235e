#!/usr/bin/env python3
"""How `sieve-index build` grows with the collection: docs/s, peak RSS, index size and
merge time per corpus size.

    bench/growth.py OUT.jsonl CORPUS_DIR [CORPUS_DIR ...] [--bin target/release/sieve-index]
                    [--threads 2] [--keep-index DIR] [--build-arg "--flag VALUE"]

Each CORPUS_DIR (make_corpus.py output, e.g. --size-mb 300, 3000 and 30000: 13,356, 131,796 and
1,317,960 documents) is indexed once with `sieve-index build --input CORPUS_DIR --index IDX
--threads T`. Measured for the whole process: wall seconds, user + system CPU seconds and peak RSS
(os.wait4's rusage); the index size on disk; the documents indexed (stats.json). "Merge time" is
the CPU time of tantivy's merge threads (`merge_thread_*`, which run the order-preserving merges of
crates/ingest/src/order.rs in the background), read from /proc/PID/task/*/stat every 0.2 s (a merge
thread lives as long as the writer, so nothing is lost between polls). The same polls give the CPU
seconds of each kind of thread (`thread_cpu_s`: workers, readers, tantivy's indexing thread, merges,
the writer): the share of the busiest single thread is the build's serial fraction. The same polls
read /proc/PID/status: resident memory split into anonymous (RssAnon: heaps, buffers) and
file-backed (RssFile: the index files tantivy mmaps, which the kernel can drop under pressure),
and each thread's /proc/PID/task/TID/schedstat (`thread_sched_s`: per kind of thread, seconds
alive, on a CPU, runnable but waiting for one, and blocked): on a loaded machine, the workers'
blocked time says whether they ever wait for work, which CPU seconds / wall cannot. Appends one JSON object per corpus to OUT.jsonl; `bench/growth_plot.py OUT.jsonl OUT.svg` draws it.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

TICK = os.sysconf("SC_CLK_TCK")


def thread_cpu(pid):
    """{tid: (comm, cpu seconds)} of the live threads of pid."""
    out = {}
    base = f"/proc/{pid}/task"
    try:
        tids = os.listdir(base)
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"{base}/{tid}/stat") as f:
                s = f.read()
        except OSError:
            continue
        comm = s[s.index("(") + 1:s.rindex(")")]
        fields = s[s.rindex(")") + 2:].split()
        out[tid] = (comm, (int(fields[11]) + int(fields[12])) / TICK)
    return out


def sched(pid, tid):
    """(seconds on a CPU, seconds runnable but waiting for one) of a thread (schedstat)."""
    try:
        with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
            run_ns, wait_ns = f.read().split()[:2]
        return int(run_ns) / 1e9, int(wait_ns) / 1e9
    except (OSError, ValueError):
        return None


def rss(pid):
    """(VmRSS, RssAnon, RssFile) of pid in MB, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            kv = dict(l.split(":", 1) for l in f if ":" in l)
        return tuple(int(kv[k].split()[0]) / 1024 for k in ("VmRSS", "RssAnon", "RssFile"))
    except (OSError, KeyError, ValueError):
        return None


def run(corpus, args):
    work = tempfile.mkdtemp(prefix="sieve-growth-", dir=args.work)
    index = os.path.join(work, "idx")
    cmd = [args.bin, "build", "--input", os.path.join(corpus, "*.warc.gz"), "--index", index,
           "--threads", str(args.threads)] + [a for arg in args.build_arg for a in arg.split()]
    log = open(os.path.join(work, "build.log"), "w+")
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log)
    seen = {}
    timeline = None
    if args.rss_timeline:
        timeline = open(args.rss_timeline, "a")
        timeline.write("# %s\n# s\trss_mb\tanon_mb\tfile_mb\tcpu_s: workers\treaders\tindexing\tmerges\n" % corpus)
    lives = {}  # tid: [first seen, last seen, cpu s, run-queue wait s] (schedstat)
    peak = (0.0, 0.0, 0.0, 0.0)  # VmRSS, RssAnon, RssFile at the VmRSS peak, seconds in
    anon_max = file_max = 0.0
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        for tid, (comm, cpu) in thread_cpu(p.pid).items():
            seen[tid] = (comm, max(cpu, seen.get(tid, (comm, 0))[1]))
            now = time.monotonic() - t0
            life = lives.setdefault(tid, [now, now, 0.0, 0.0])
            st = sched(p.pid, tid)
            if st:
                life[1], life[2], life[3] = now, max(life[2], st[0]), max(life[3], st[1])
        r = rss(p.pid)
        if r and timeline is not None:
            cpu_by = {}
            for comm, cpu in seen.values():
                k = ("index" if comm.startswith("thrd-tantivy-in") else "merge" if comm.startswith("merge_thread")
                     else "work" if comm.startswith("sieve-work") else "read" if comm.startswith("sieve-read") else None)
                if k:
                    cpu_by[k] = cpu_by.get(k, 0) + cpu
            timeline.write("%.1f\t%.1f\t%.1f\t%.1f\t%s\n" % (time.monotonic() - t0, *r, "\t".join(
                "%.1f" % cpu_by.get(k, 0) for k in ("work", "read", "index", "merge"))))
        if r:
            if r[0] > peak[0]:
                peak = (*r, time.monotonic() - t0)
            anon_max, file_max = max(anon_max, r[1]), max(file_max, r[2])
        time.sleep(0.2)
    wall = time.monotonic() - t0
    log.seek(0)
    progress = log.read()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"growth: {' '.join(cmd)} failed:\n{progress[-2000:]}")
    stats = json.load(open(os.path.join(index, "stats.json")))
    stats = stats.get("payload", stats)
    docs = stats["totals"]["indexed"]
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(index) for f in fs)
    # CPU per kind of thread (thread names: sieve-work-N the worker pool,
    # sieve-read-N the readers, thrd-tantivy-index* tantivy's indexing
    # thread, merge_thread* its merges, the process's own name the writer).
    groups = {}
    # Per kind of thread, seconds: alive (first to last poll), on a CPU, waiting for a CPU
    # (runnable: other processes' load shows here), and blocked (waiting for work or a lock:
    # alive - on CPU - runnable). Blocked time of the workers is what idles cores on a quiet
    # machine; run-queue waits are the machine's load.
    sched_groups = {}
    for tid, (comm, cpu) in seen.items():
        if comm.startswith("sieve-work"):
            g = "workers"
        elif comm.startswith("sieve-read"):
            g = "readers"
        elif comm.startswith("thrd-tantivy-in"):  # comm is cut at 15 bytes
            g = "tantivy_index"
        elif comm.startswith("merge_thread"):
            g = "merge"
        elif comm.startswith("docstore-compre"):
            g = "docstore"
        elif tid == str(p.pid):
            g = "writer"
        else:
            g = "other:" + comm
        groups[g] = round(groups.get(g, 0) + cpu, 2)
        first, last, on, waiting = lives.get(tid, [0, 0, 0, 0])
        sg = sched_groups.setdefault(g, {"alive_s": 0.0, "cpu_s": 0.0, "runnable_s": 0.0, "blocked_s": 0.0})
        sg["alive_s"] += last - first
        sg["cpu_s"] += on
        sg["runnable_s"] += waiting
        sg["blocked_s"] += max(0.0, last - first - on - waiting)
    sched_groups = {g: {k: round(v, 2) for k, v in d.items()} for g, d in sched_groups.items()}
    rec = {
        "corpus": os.path.basename(os.path.normpath(corpus)),
        "threads": args.threads,
        "docs": docs,
        "wall_s": round(wall, 3),
        "cpu_s": round(ru.ru_utime + ru.ru_stime, 3),
        "peak_rss_mb": round(ru.ru_maxrss / 1024, 1),
        "index_mb": round(size / 1e6, 1),
        # /proc/PID/status every 0.2 s: anonymous (heap) and file-backed (the mmap'd segments)
        # resident memory, at the polled VmRSS peak and their own maxima.
        "polled_rss_peak_mb": round(peak[0], 1),
        "rss_anon_at_peak_mb": round(peak[1], 1),
        "rss_file_at_peak_mb": round(peak[2], 1),
        "rss_peak_at_s": round(peak[3], 1),
        "rss_anon_max_mb": round(anon_max, 1),
        "rss_file_max_mb": round(file_max, 1),
        "merge_cpu_s": groups.get("merge", 0),
        "thread_cpu_s": groups,
        "thread_sched_s": sched_groups,
        "build_seconds": round(stats.get("seconds", 0), 3),
        "docs_per_s": round(docs / wall, 1),
        "docs_per_cpu_s": round(docs / (ru.ru_utime + ru.ru_stime), 1),
        "load_before": args.load,
        "load_after": os.getloadavg()[0],
        "bin": args.bin,
    }
    if args.keep_index:
        shutil.move(index, os.path.join(args.keep_index, rec["corpus"]))
    shutil.rmtree(work, ignore_errors=True)
    return rec


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("corpora", nargs="+")
    ap.add_argument("--bin", default="target/release/sieve-index")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--work", default=None, help="directory for the temporary index (default: $TMPDIR)")
    ap.add_argument("--keep-index", default=None)
    ap.add_argument("--rss-timeline", default=None,
                    help="append every poll (seconds, RSS, anonymous, file-backed MB, CPU seconds so far of "
                         "workers, readers, tantivy's indexing thread, merges) to this TSV file")
    ap.add_argument("--build-arg", action="append", default=[],
                    help="extra arguments of `sieve-index build` (split on spaces; repeatable)")
    args = ap.parse_args()
    for corpus in args.corpora:
        args.load = os.getloadavg()[0]
        rec = run(corpus, args)
        print(json.dumps(rec), flush=True)
        with open(args.out, "a") as f:
            f.write(json.dumps(rec) + "\n")


if __name__ == "__main__":
    main()
