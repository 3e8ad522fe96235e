#!/usr/bin/env python3
"""Main-content extraction, side by side.

    bench/peers/setup-extraction.sh          # once: Resiliparse and trafilatura in bench/peers/.venv-extract
    cargo build --release -p sieve-bench --example html_text
    bench/peers/.venv-extract/bin/python bench/peers/extraction.py [--sieve BIN] [--json OUT.json]

Reads the article-extraction benchmark in the shared data directory
(html/article-extraction-benchmark: gzipped HTML pages and
ground-truth.subset.json with each page's articleBody) and extracts every
page with, in one run:

* sieve --text all and --text main (the `html_text` example: same decoding
  and extraction as `sieve-index build` / `extract`);
* Resiliparse extract_plain_text (plain, and main_content=True);
* trafilatura extract (defaults).

Scores are token-level against the ground truth, as the benchmark's own
evaluation does: tokens are the lower-cased words (regex \\w+, Unicode), a
text is a multiset of tokens, common = the multiset intersection;
precision = common / extracted tokens, recall = common / ground-truth
tokens, F1 their harmonic mean. Reported: the mean over pages of each
(a page with no extracted token has precision 0), and the micro figures
(sums over all pages).
"""
import argparse
import gzip
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "scripts"))
from sievelib import shared_data  # noqa: E402

TOKEN = re.compile(r"\w+", re.UNICODE)


def tokens(text):
    return Counter(t.lower() for t in TOKEN.findall(text or ""))


def shingle_f1(extracted, truth, n=4):
    """The benchmark's own measure (its evaluate.py): counts of case-sensitive 4-word
    shingles, tp/fp/fn normalised per page; returns (tp, fp, fn)."""
    def sh(text):
        t = TOKEN.findall(text or "")
        return Counter(tuple(t[i:i + n]) for i in range(max(1, len(t) - n + 1)) if t[i:i + n])
    a, b = sh(truth), sh(extracted)
    tp = fp = fn = 0.0
    for k in set(a) | set(b):
        tc, pc = a.get(k, 0), b.get(k, 0)
        tp += min(tc, pc)
        fp += max(0, pc - tc)
        fn += max(0, tc - pc)
    s = tp + fp + fn
    return (tp / s, fp / s, fn / s) if s else (0.0, 0.0, 0.0)


def bench_metric(rows):
    """evaluate.py's precision, recall and F1 from per-page (tp, fp, fn)."""
    def prec(tp, fp, fn):
        return 1.0 if fp == fn == 0 else (0.0 if tp == fp == 0 else tp / (tp + fp))

    def rec(tp, fp, fn):
        return 1.0 if fp == fn == 0 else (0.0 if tp == fn == 0 else tp / (tp + fn))
    ps = [prec(*r) for r in rows if r[0] + r[1] > 0]
    rs = [rec(*r) for r in rows if r[0] + r[2] > 0]
    p = sum(ps) / len(ps) if ps else 0.0
    r = sum(rs) / len(rs) if rs else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def score(extracted, truth):
    e, t = tokens(extracted), tokens(truth)
    common = sum((e & t).values())
    ne, nt = sum(e.values()), sum(t.values())
    p = common / ne if ne else 0.0
    r = common / nt if nt else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f, common, ne, nt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sieve", default=os.path.join(REPO, "target/release/examples/html_text"))
    ap.add_argument("--json", help="write per-page scores here")
    ap.add_argument("--sieve-only", action="store_true", help="run sieve only (no peers)")
    ap.add_argument("--bench-dir", help="a checkout of scrapinghub/article-extraction-benchmark "
                    "(html/*.html.gz, ground-truth.json); default: the 40-page subset in the shared data")
    ap.add_argument("--held-out", action="store_true",
                    help="with --bench-dir: only the pages not in the shared 40-page subset")
    args = ap.parse_args()
    data = shared_data()
    subset = os.path.join(data, "html", "article-extraction-benchmark") if data else None
    if args.bench_dir:
        bench = args.bench_dir
        truth = json.load(open(os.path.join(bench, "ground-truth.json"), encoding="utf-8"))
        if args.held_out:
            if subset is None:
                print("--held-out needs the shared subset to know which pages to leave out", file=sys.stderr)
                return 2
            seen = json.load(open(os.path.join(subset, "ground-truth.subset.json"), encoding="utf-8"))
            truth = {k: v for k, v in truth.items() if k not in seen}
    elif subset is None:
        print("SKIPPED: extraction benchmark: shared data not found (set SIEVE_SHARED_DATA)", file=sys.stderr)
        return 0
    else:
        bench = subset
        truth = json.load(open(os.path.join(bench, "ground-truth.subset.json"), encoding="utf-8"))
    keys = sorted(truth)
    files = [os.path.join(bench, "html", k + ".html.gz") for k in keys]

    outputs = {}
    seconds = {}
    for mode in ("all", "main"):
        t0 = time.perf_counter()
        out = subprocess.run([args.sieve, mode] + files, check=True, capture_output=True).stdout
        seconds[f"sieve {mode}"] = time.perf_counter() - t0
        lines = [json.loads(l) for l in out.decode("utf-8").splitlines()]
        outputs[f"sieve {mode}"] = [l["text"] for l in lines]

    pages = []
    for f in files:
        raw = gzip.open(f).read()
        pages.append(raw)
    if args.sieve_only:
        pass
    else:
        run_peers(pages, outputs, seconds)
    report(outputs, seconds, keys, truth, args.json)
    return 0


def run_peers(pages, outputs, seconds):
    try:
        from resiliparse.extract.html2text import extract_plain_text
        from resiliparse.parse.html import HTMLTree
        from resiliparse.parse.encoding import bytes_to_str, detect_encoding

        for name, main_content in (("resiliparse plain", False), ("resiliparse main_content", True)):
            t0 = time.perf_counter()
            texts = []
            for raw in pages:
                tree = HTMLTree.parse(bytes_to_str(raw, detect_encoding(raw)))
                texts.append(extract_plain_text(tree, main_content=main_content))
            seconds[name] = time.perf_counter() - t0
            outputs[name] = texts
    except ImportError as e:
        print(f"resiliparse not installed ({e}): run bench/peers/setup-extraction.sh", file=sys.stderr)
    try:
        import trafilatura

        t0 = time.perf_counter()
        outputs["trafilatura"] = [trafilatura.extract(raw.decode("utf-8", "replace")) or "" for raw in pages]
        seconds["trafilatura"] = time.perf_counter() - t0
    except ImportError as e:
        print(f"trafilatura not installed ({e}): run bench/peers/setup-extraction.sh", file=sys.stderr)



def report(outputs, seconds, keys, truth, json_out):
    print(f"{len(keys)} pages, token-level scores against ground-truth articleBody")
    print("| system | precision | recall | F1 | micro P | micro R | micro F1 | 4-gram F1 (evaluate.py) | seconds |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    per_page = {}
    for name, texts in outputs.items():
        rows = [score(x, truth[k]["articleBody"]) for x, k in zip(texts, keys)]
        per_page[name] = {k: r[:3] for k, r in zip(keys, rows)}
        n = len(rows)
        mp = sum(r[0] for r in rows) / n
        mr = sum(r[1] for r in rows) / n
        mf = sum(r[2] for r in rows) / n
        common = sum(r[3] for r in rows)
        ne = sum(r[4] for r in rows)
        nt = sum(r[5] for r in rows)
        up, ur = common / ne, common / nt
        uf = 2 * up * ur / (up + ur)
        _, _, bf = bench_metric([shingle_f1(x, truth[k]["articleBody"]) for x, k in zip(texts, keys)])
        print(f"| {name} | {mp:.4f} | {mr:.4f} | {mf:.4f} | {up:.4f} | {ur:.4f} | {uf:.4f} | {bf:.4f} | {seconds[name]:.2f} |")
    if json_out:
        json.dump(per_page, open(json_out, "w"), indent=1)


if __name__ == "__main__":
    sys.exit(main())
