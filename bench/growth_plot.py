#!/usr/bin/env python3
"""Draw bench/growth.py's results as one SVG: four panels against the number of documents (log
scale): docs/s (wall) and docs per CPU second, peak RSS, index size, merge CPU seconds.

    bench/growth_plot.py RESULTS.jsonl OUT.svg [--title TEXT]

Plain SVG 1.1 written by hand (no plotting library), so it renders the same everywhere; check it
with `python3 -c "import xml.etree.ElementTree as E; E.parse('OUT.svg')"` and look at it with
`convert OUT.svg OUT.png`.
"""
import argparse
import json
import math
from xml.sax.saxutils import escape

W, H = 880, 560
PANEL_W, PANEL_H = 340, 170
MARGIN_L, MARGIN_T, GAP_X, GAP_Y = 80, 70, 110, 95
COLOURS = ["#1f77b4", "#d62728"]


def nice_max(v):
    if v <= 0:
        return 1.0
    e = 10 ** math.floor(math.log10(v))
    for m in (1, 2, 2.5, 5, 10):
        if v <= m * e:
            return m * e
    return 10 * e


def fmt(v):
    if v >= 1e6:
        return f"{v / 1e6:g}M"
    if v >= 1e3:
        return f"{v / 1e3:g}k"
    return f"{v:g}"


def panel(out, x0, y0, title, xs, series, unit):
    """series: list of (label, [y...]); xs: doc counts (log axis)."""
    lo, hi = math.log10(min(xs)) - 0.15, math.log10(max(xs)) + 0.15
    ymax = nice_max(max(max(ys) for _, ys in series) * 1.1)
    sx = lambda x: x0 + (math.log10(x) - lo) / (hi - lo) * PANEL_W
    sy = lambda y: y0 + PANEL_H - y / ymax * PANEL_H
    out.append(f'<text x="{x0}" y="{y0 - 12}" font-size="14" font-weight="bold">{escape(title)}</text>')
    out.append(f'<rect x="{x0}" y="{y0}" width="{PANEL_W}" height="{PANEL_H}" fill="none" stroke="#444"/>')
    for k in range(5):
        v = ymax * k / 4
        y = sy(v)
        out.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x0 + PANEL_W}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{x0 - 6}" y="{y + 4:.1f}" font-size="11" text-anchor="end">{fmt(v)}</text>')
    for x in xs:
        out.append(f'<line x1="{sx(x):.1f}" y1="{y0 + PANEL_H}" x2="{sx(x):.1f}" y2="{y0 + PANEL_H + 4}" stroke="#444"/>')
        out.append(f'<text x="{sx(x):.1f}" y="{y0 + PANEL_H + 17}" font-size="11" text-anchor="middle">{fmt(x)}</text>')
    out.append(f'<text x="{x0 + PANEL_W / 2}" y="{y0 + PANEL_H + 33}" font-size="11" text-anchor="middle">documents (log scale)</text>')
    out.append(f'<text x="{x0 - 48}" y="{y0 + PANEL_H / 2}" font-size="11" text-anchor="middle" '
               f'transform="rotate(-90 {x0 - 48} {y0 + PANEL_H / 2})">{escape(unit)}</text>')
    for i, (label, ys) in enumerate(series):
        c = COLOURS[i % len(COLOURS)]
        pts = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in zip(xs, ys))
        out.append(f'<polyline points="{pts}" fill="none" stroke="{c}" stroke-width="2"/>')
        for x, y in zip(xs, ys):
            out.append(f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="3.5" fill="{c}"/>')
            out.append(f'<text x="{sx(x):.1f}" y="{sy(y) - 7:.1f}" font-size="10" text-anchor="middle" fill="{c}">{fmt(round(y, 1))}</text>')
        if len(series) > 1:
            ly = y0 + 14 + 14 * i
            out.append(f'<line x1="{x0 + 10}" y1="{ly - 4}" x2="{x0 + 28}" y2="{ly - 4}" stroke="{c}" stroke-width="2"/>')
            out.append(f'<text x="{x0 + 32}" y="{ly}" font-size="11">{escape(label)}</text>')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("out")
    ap.add_argument("--title", default="sieve-index build as the collection grows (bench/growth.py)")
    a = ap.parse_args()
    rows = [json.loads(l) for l in open(a.results) if l.strip()]
    rows.sort(key=lambda r: r["docs"])
    xs = [r["docs"] for r in rows]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{W}" height="{H}" '
           f'viewBox="0 0 {W} {H}" font-family="DejaVu Sans, Arial, sans-serif">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{W / 2}" y="28" font-size="16" text-anchor="middle">{escape(a.title)}</text>']
    c0, c1 = MARGIN_L, MARGIN_L + PANEL_W + GAP_X
    r0, r1 = MARGIN_T, MARGIN_T + PANEL_H + GAP_Y
    panel(out, c0, r0, "Throughput", xs,
          [("docs/s (wall)", [r["docs_per_s"] for r in rows]),
           ("docs per CPU second", [r["docs_per_cpu_s"] for r in rows])], "documents per second")
    panel(out, c1, r0, "Peak RSS", xs, [("peak RSS", [r["peak_rss_mb"] for r in rows])], "MB")
    panel(out, c0, r1, "Index size", xs, [("index", [r["index_mb"] for r in rows])], "MB")
    panel(out, c1, r1, "Merge CPU (tantivy merge threads)", xs,
          [("merge CPU", [r["merge_cpu_s"] for r in rows])], "CPU seconds")
    out.append("</svg>")
    with open(a.out, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
