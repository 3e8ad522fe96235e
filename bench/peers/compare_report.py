#!/usr/bin/env python3
"""Summarise compare.sh's results.jsonl as Markdown: medians per tool and ratios ours / Anserini.

    compare_report.py RESULTS.jsonl

CPU s is user (+ sys when recorded) time of the whole process: on a shared machine it moves less
with other load than wall time does. Ratios: docs/s and MB/s > 1 means sieve is faster; peak RSS, index size and latency < 1 means
sieve uses less. Medians are over the reps of each (tool, threads) cell; docs/s = docs / median wall.
"""
import collections
import json
import statistics
import sys


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def ratio(a, b):
    return f"{a / b:.3g}x" if a is not None and b else "n/a"


def fmt(x, spec=".1f"):
    return "n/a" if x is None else format(x, spec)


def main():
    rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
    by = collections.defaultdict(list)
    for r in rows:
        by[r["kind"]].append(r)
    out = []
    for c in by["corpus"]:
        out.append(f"Corpus: {c['docs']} docs, {c['uncompressed_bytes']/1e6:.1f} MB uncompressed, "
                   f"{c['compressed_bytes']/1e6:.1f} MB per-record gzip ({c['replicas']} replicas of {sum(c['sources'].values())} ClueWeb09 responses)\n")

    if by["warc_read"]:
        out.append("## WARC reading (median of runs; MB/s on file bytes as stored)\n")
        out.append("| file | MB | reader | records | responses | MB/s | records/s | error |")
        out.append("|---|---:|---|---:|---:|---:|---:|---|")
        totals = collections.defaultdict(lambda: [0, 0, 0, 0.0, 0])
        for r in by["warc_read"]:
            err = (r["error"] or "")[:60].replace("|", "/")
            # a reader that stopped early reports time-to-failure, not throughput
            mbps, rps = (r["MB_per_s"], r["records_per_s"]) if not r["error"] else ("stopped", "stopped")
            out.append(f"| {r['file']} | {r['bytes']/1e6:.2f} | {r['reader']} | {r['records']} | {r['responses']} | "
                       f"{mbps} | {rps} | {err} |")
            if r["file"].startswith("bench-"):
                t = totals[(r.get("set", "corpus"), r["reader"])]
                t[0] += r["bytes"]; t[1] += r["records"]; t[2] += r["responses"]; t[3] += r["seconds"]
                t[4] += 1 if r["error"] else 0
        for (cset, reader), (b, rec, resp, secs, errs) in sorted(totals.items()):
            if errs:
                out.append(f"| **{cset} total** | {b/1e6:.2f} | {reader} | {rec} | {resp} | stopped | stopped | stopped on {errs} files |")
            else:
                out.append(f"| **{cset} total** | {b/1e6:.2f} | {reader} | {rec} | {resp} | {b/1e6/secs:.2f} | {rec/secs:.1f} | |")
        out.append("")
        for cset in sorted({c for c, _ in totals}):
            o, f = totals.get((cset, "sieve")), totals.get((cset, "fastwarc"))
            if o and f and not o[4] and not f[4]:
                out.append(f"Reading ratio sieve/FastWARC on {cset}: MB/s {ratio(o[0] / o[3], f[0] / f[3])}")
        # Records recovered: ours against the best peer, file by file.
        per_file = collections.defaultdict(dict)
        for r in by["warc_read"]:
            per_file[(r.get("set"), r["file"])][r["reader"]] = r["records"]
        short = [(k, v) for k, v in per_file.items() if "sieve" in v and v["sieve"] < max(v.values())]
        if any("sieve" in v for v in per_file.values()):
            if short:
                out.append("Files where sieve recovered FEWER records than a peer: " +
                           ", ".join(f"{f} ({v})" for (_, f), v in short))
            else:
                n = sum(1 for v in per_file.values() if "sieve" in v)
                out.append(f"Records recovered: sieve >= every peer on all {n} files read.")
        out.append("")

    if by["index"]:
        out.append("## Indexing the corpus (whole process, /usr/bin/time -v; median of reps)\n")
        out.append("| tool | threads | reps | docs | wall s | CPU s | cores busy | docs/s | docs per CPU s | MB/s (gz) | peak RSS MB | index MB |")
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        cells = collections.defaultdict(list)
        for r in by["index"]:
            cells[(r["tool"], r["threads"])].append(r)
        summary = {}
        for (tool, t), rs in sorted(cells.items()):
            wall = med([r["wall_s"] for r in rs])
            cpu = med([(r.get("user_s") or 0) + (r.get("sys_s") or 0) for r in rs if r.get("user_s") is not None])
            docs = rs[-1]["docs"]
            s = {"cpu": cpu, "dpc": docs / cpu if docs and cpu else None, "wall": wall, "dps": docs / wall if docs and wall else None,
                 "mbps": rs[-1]["input_bytes"] / 1e6 / wall if wall else None,
                 "rss": med([r["peak_rss_kb"] for r in rs]) / 1024, "size": rs[-1]["index_bytes"] / 1e6}
            summary[(tool, t)] = s
            busy = cpu / wall if cpu and wall else None
            out.append(f"| {tool} | {t} | {len(rs)} | {docs} | {fmt(wall, '.2f')} | {fmt(cpu, '.2f')} | {fmt(busy, '.2f')} | {fmt(s['dps'])} | {fmt(s['dpc'])} | {fmt(s['mbps'], '.2f')} | "
                       f"{fmt(s['rss'], '.0f')} | {fmt(s['size'], '.1f')} |")
        for t in sorted({t for _, t in summary}):
            o, a = summary.get(("sieve", t)), summary.get(("anserini", t))
            if o and a:
                out.append(f"\nRatio sieve/Anserini at {t} thread(s): docs/s {ratio(o['dps'], a['dps'])}, "
                           f"docs per CPU s {ratio(o['dpc'], a['dpc'])}, MB/s {ratio(o['mbps'], a['mbps'])}, peak RSS {ratio(o['rss'], a['rss'])}, "
                           f"index size {ratio(o['size'], a['size'])} (goals: docs/s >= 2.5x, docs per CPU s >= 2x)")
        out.append("")

    if by["search"]:
        out.append("## Batch search, BM25 k1=0.9 b=0.4, top 1000 (whole process incl. start-up; median of reps)\n")
        out.append("| tool | reps | topics with hits | wall s | ms/topic | peak RSS MB |")
        out.append("|---|---:|---:|---:|---:|---:|")
        summary = {}
        cells = collections.defaultdict(list)
        for r in by["search"]:
            cells[r["tool"]].append(r)
        for tool, rs in sorted(cells.items()):
            wall = med([r["wall_s"] for r in rs])
            n = rs[-1]["topics_with_hits"]
            summary[tool] = wall
            out.append(f"| {tool} | {len(rs)} | {n} | {fmt(wall, '.2f')} | {fmt(1000 * wall / n if n else None, '.2f')} | "
                       f"{fmt(med([r['peak_rss_kb'] for r in rs]) / 1024, '.0f')} |")
        if "sieve" in summary and "anserini" in summary:
            out.append(f"\nRatio sieve/Anserini wall time: {ratio(summary['sieve'], summary['anserini'])}")
        for r in by["overlap"]:
            if "page_overlap@10" in r:
                out.append(f"\nPage-level overlap (replicas of a page counted once; overlap.py --pages): "
                           f"@10 {r['page_overlap@10']:.4f}, @1000 {r['page_overlap@1000']:.4f}; "
                           f"tie-aware docid overlap @10 {r['tie_overlap@10']:.4f}, @1000 {r['tie_overlap@1000']:.4f}. "
                           "Plain docid overlap below is low at @10 because each page has 53 tied copies and "
                           "the systems break ties differently (sieve: docid descending, as trec_eval; Lucene: index order).")
            out.append(f"\nOverlap sieve vs Anserini: @10 {r['overlap@10']:.4f}, @1000 {r['overlap@1000']:.4f} "
                       f"over {r['topics_shared']} shared topics (only sieve: {r['topics_only_a']}, only Anserini: {r['topics_only_b']})")
        out.append("")

    if by["cacm"]:
        out.append("## CACM effectiveness (pytrec_eval, 52 judged topics; published Anserini BM25: MAP 0.3123, P@30 0.1942)\n")
        out.append("| tool | MAP | P@30 |")
        out.append("|---|---:|---:|")
        for r in by["cacm"]:
            out.append(f"| {r['tool']} | {r['map']:.4f} | {r['P_30']:.4f} |")
        for r in by["overlap_cacm"]:
            out.append(f"\nCACM overlap sieve vs Anserini: @10 {r['overlap@10']:.4f}, @1000 {r['overlap@1000']:.4f}")
        out.append("")
    print("\n".join(out))


if __name__ == "__main__":
    main()
