#!/usr/bin/env python3
"""Table and figure of query latency against collection size.

    python3 bench/search_growth.py RESULTS.jsonl [--svg OUT.svg] > table.md

RESULTS.jsonl is what bench/peers/search_growth.sh collects: one object per system, collection
size (`docs`) and k (`hits`), with `mean_ms`, `p50_ms` and `p99_ms` over the topics (each topic
the median of its runs). When a (system, docs, hits) appears more than once, the median of the
rows is used; rows from `search_growth.sh --rounds N` carry their round, and then the ratio to
sieve is the median over rounds of the ratio within each round (the two runs a minute apart,
where the medians of each system's rows would pair runs from different moments of a drifting
host). The last line of the table says how many rounds it holds. Writes a Markdown table (one row per system and size; mean / p99 at each k, and the
mean as a ratio to sieve's) to standard output and, with --svg, a two-panel figure (top 10, top
1000): mean latency against documents, both axes logarithmic, one line per system. The SVG is
plain (no scripts, no web fonts: `font-family` sans-serif); Okabe-Ito colours, with a distinct
dash and marker per system so it reads in grey too.
"""
import argparse
import json
import math
import statistics
import sys
from xml.sax.saxutils import escape

# system key -> (label, colour, dash, marker)
SYSTEMS = {
    "plain": ("sieve, BM25 0.9/0.4", "#000000", "", "circle"),
    "four": ("sieve, 4 settings in one pass", "#999999", "2,3", "circle"),
    "plain12": ("sieve, BM25 1.2/0.75", "#56B4E9", "6,3", "circle"),
    "plain_reordered": ("sieve, BM25 0.9/0.4, index in BP order", "#000000", "2,2", "square"),
    "tantivy": ("tantivy 0.27 TopDocs (BMW, 1.2/0.75)", "#E69F00", "", "square"),
    "pisa_block_max_wand": ("PISA 0.4.9 block_max_wand", "#0072B2", "", "triangle"),
    "pisa_block_max_maxscore": ("PISA 0.4.9 block_max_maxscore", "#009E73", "5,2", "triangle"),
    "pisa_maxscore": ("PISA 0.4.9 maxscore", "#D55E00", "1,2", "diamond"),
    # Reddish purple is the filter rows' too, but they are not drawn.
    "lucene": ("Lucene 9.9.1 (BM25 0.9/0.4)", "#CC79A7", "8,3", "down-triangle"),
    "full": ("sieve + filter, full stats", "#CC79A7", "4,2,1,2", "circle"),
    "filtered": ("sieve + filter, filtered stats", "#F0E442", "4,2,1,2", "circle"),
}
# Drawn in the figure (the filter rows stay in the table).
PLOTTED = ["plain", "plain_reordered", "four", "tantivy", "pisa_block_max_wand", "pisa_block_max_maxscore",
           "pisa_maxscore", "lucene"]


def load(path):
    rows = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            r = json.loads(line)
            if "mean_ms" not in r or "system" not in r:
                continue
            key = (r["system"], int(r["docs"]), int(r["hits"]))
            rows.setdefault(key, []).append(r)
    out = {}
    for key, rs in rows.items():
        out[key] = {m: statistics.median(r[m] for r in rs) for m in ("mean_ms", "p50_ms", "p99_ms")}
        out[key]["rounds"] = {r["round"]: r for r in rs if "round" in r}
    return out


def ratio_to_sieve(data, key):
    """The mean of `key` over sieve's ("plain") at the same size and k: the median of the
    per-round ratios when both were measured in the same rounds, else the ratio of the
    medians; None without a sieve row."""
    base = data.get(("plain", key[1], key[2]))
    if base is None:
        return None
    r = data[key]
    common = sorted(set(r["rounds"]) & set(base["rounds"]))
    if common:
        return statistics.median(r["rounds"][i]["mean_ms"] / base["rounds"][i]["mean_ms"]
                                 for i in common)
    return r["mean_ms"] / base["mean_ms"]


def docs_label(n):
    if n >= 1_000_000 and n % 1_000_000 == 0:
        return f"{n // 1_000_000}M"
    if n >= 1000 and n % 1000 == 0:
        return f"{n // 1000}k"
    return str(n)


def table(data):
    systems = [s for s in SYSTEMS if any(k[0] == s for k in data)]
    sizes = sorted({k[1] for k in data})
    hits = sorted({k[2] for k in data})
    head = "| system | docs |" + "".join(
        f" top {k}: mean ms | p99 ms | mean / sieve |" for k in hits)
    lines = [head, "|---|---:|" + "---:|---:|---:|" * len(hits)]
    for s in systems:
        for n in sizes:
            if not any((s, n, k) in data for k in hits):
                continue
            cells = []
            for k in hits:
                r = data.get((s, n, k))
                if r is None:
                    cells += ["", "", ""]
                    continue
                q = ratio_to_sieve(data, (s, n, k))
                ratio = "" if q is None else f"{q:.2f}"
                cells += [f"{r['mean_ms']:.3f}", f"{r['p99_ms']:.2f}", ratio]
            lines.append(f"| {SYSTEMS[s][0]} | {docs_label(n)} | " + " | ".join(cells) + " |")
    rounds = max((len(v["rounds"]) for v in data.values()), default=0)
    if rounds > 1:
        lines.append("")
        lines.append(f"Rounds: {rounds}; each figure is the median over rounds, each ratio the "
                     "median of the per-round ratios.")
    return "\n".join(lines) + "\n"


def marker(kind, x, y, colour):
    r = 4.5
    if kind == "square":
        return f'<rect x="{x - r:.1f}" y="{y - r:.1f}" width="{2 * r:.1f}" height="{2 * r:.1f}" fill="{colour}"/>'
    if kind == "triangle":
        pts = f"{x:.1f},{y - r - 1:.1f} {x - r - 1:.1f},{y + r:.1f} {x + r + 1:.1f},{y + r:.1f}"
        return f'<polygon points="{pts}" fill="{colour}"/>'
    if kind == "down-triangle":
        pts = f"{x:.1f},{y + r + 1:.1f} {x - r - 1:.1f},{y - r:.1f} {x + r + 1:.1f},{y - r:.1f}"
        return f'<polygon points="{pts}" fill="{colour}"/>'
    if kind == "diamond":
        pts = f"{x:.1f},{y - r - 1:.1f} {x + r + 1:.1f},{y:.1f} {x:.1f},{y + r + 1:.1f} {x - r - 1:.1f},{y:.1f}"
        return f'<polygon points="{pts}" fill="{colour}"/>'
    return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="{colour}"/>'


def svg(data):
    hits = sorted({k[2] for k in data})
    sizes = sorted({k[1] for k in data})
    vals = [v["mean_ms"] for k, v in data.items() if k[0] in PLOTTED and v["mean_ms"] > 0]
    lo = 10 ** math.floor(math.log10(min(vals)))
    hi = 10 ** math.ceil(math.log10(max(vals)))
    xlo, xhi = math.log10(min(sizes)) - 0.15, math.log10(max(sizes)) + 0.15
    pw, ph, left, top, gap = 330, 280, 70, 50, 60
    legend_h = 22 * ((len(PLOTTED) + 1) // 2) + 10
    width = left + len(hits) * pw + (len(hits) - 1) * gap + 30
    height = top + ph + 55 + legend_h
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{width / 2:.0f}" y="20" text-anchor="middle" font-size="15">'
           'Mean query latency against collection size (one thread, synthetic collection)</text>']
    for i, k in enumerate(hits):
        x0 = left + i * (pw + gap)
        X = lambda n: x0 + (math.log10(n) - xlo) / (xhi - xlo) * pw
        Y = lambda v: top + ph - (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)) * ph
        out.append(f'<text x="{x0 + pw / 2:.0f}" y="{top - 10}" text-anchor="middle" font-size="13">top {k}</text>')
        out.append(f'<rect x="{x0}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#444"/>')
        e = math.log10(lo)
        while e <= math.log10(hi) + 1e-9:
            v = 10 ** e
            y = Y(v)
            out.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x0 + pw}" y2="{y:.1f}" stroke="#ddd"/>')
            label = f"{v:g}"
            out.append(f'<text x="{x0 - 6}" y="{y + 4:.1f}" text-anchor="end">{label}</text>')
            e += 1
        for n in sizes:
            x = X(n)
            out.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + ph}" stroke="#eee"/>')
            out.append(f'<text x="{x:.1f}" y="{top + ph + 16}" text-anchor="middle">{docs_label(n)}</text>')
        out.append(f'<text x="{x0 + pw / 2:.0f}" y="{top + ph + 34}" text-anchor="middle">documents</text>')
        if i == 0:
            out.append(f'<text x="18" y="{top + ph / 2:.0f}" text-anchor="middle" '
                       f'transform="rotate(-90 18 {top + ph / 2:.0f})">mean latency, ms (log)</text>')
        for s in PLOTTED:
            label, colour, dash, mk = SYSTEMS[s]
            pts = [(X(n), Y(data[(s, n, k)]["mean_ms"])) for n in sizes if (s, n, k) in data]
            if not pts:
                continue
            if len(pts) > 1:
                d = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
                dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
                out.append(f'<polyline points="{d}" fill="none" stroke="{colour}" stroke-width="2"{dash_attr}/>')
            out += [marker(mk, x, y, colour) for x, y in pts]
    ly = top + ph + 55
    for j, s in enumerate(PLOTTED):
        label, colour, dash, mk = SYSTEMS[s]
        x = left + (j % 2) * (width - left) / 2
        y = ly + (j // 2) * 22
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(f'<line x1="{x:.0f}" y1="{y}" x2="{x + 34:.0f}" y2="{y}" stroke="{colour}" stroke-width="2"{dash_attr}/>')
        out.append(marker(mk, x + 17, y, colour))
        out.append(f'<text x="{x + 42:.0f}" y="{y + 4}">{escape(label)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results")
    ap.add_argument("--svg")
    a = ap.parse_args()
    data = load(a.results)
    if not data:
        sys.exit("search_growth: no results")
    sys.stdout.write(table(data))
    if a.svg:
        with open(a.svg, "w", encoding="utf-8") as f:
            f.write(svg(data))


if __name__ == "__main__":
    main()
