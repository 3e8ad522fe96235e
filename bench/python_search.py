"""What searching from Python costs next to the command line.

    cargo build --release -p sieve --bins                 # the CLI being compared
    .venv/bin/python -m pip install ./python              # the package, release build
    .venv/bin/python bench/python_search.py [--docs 100000] [--reps 7] [--threads 1]

The index: ``--docs`` synthetic documents (default 100,000) of words drawn
from a Zipf(1) law over the vocabulary of real text (the CACM collection and
the WT10g sample from the shared data, else the committed CACM copy), 50 to
1,175 words each, as the Rust search bench (``bench/benches/search.rs``)
makes its index; built once by ``target/release/sieve-index build`` into
``target/bench-data/python-search-N/`` and reused. The topics: the 200 TREC
Web Track titles of ``topics/`` (read by ``sieve.read_topics``), written once
as one TSV topic file that both sides read. k1 = 0.9, b = 0.4, top 1000.

Measured, interleaved (CLI, then Python, ``--reps`` times; medians):

* ``cli``: the ``sieve-search run --output RUN`` process, wall time (opening
  the index, reading the topics, searching, writing the run);
* ``cli search``: the search alone, as the CLI reports it
  (``searched 200 topics ... in Xs``);
* ``python search``: ``index.search(topics)`` in a warm interpreter (the
  index opened and the topics read before): the search and the results
  DataFrame (200,000 rows), what a notebook pays per call;
* ``python end to end``: ``sieve.Index(path)``, ``sieve.read_topics``,
  ``index.search``, ``sieve.write_run``: the CLI's work, from Python;
* the same search with the docno column built from a list of ``str`` (one
  Python object per hit, what pandas < 3 or a pandas without pyarrow gets)
  instead of Arrow buffers.

Ratios are Python over CLI, each pair from the same repetition. The run
file written from Python is checked to equal the CLI's byte for byte.
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
from sievelib import shared_data  # noqa: E402

import sieve  # noqa: E402
from sieve import _frames  # noqa: E402


def vocabulary() -> list:
    """Lower-case alphabetic words (2-20 letters) of real text, most frequent first."""
    texts = []
    d = shared_data()
    if d:
        for p in ["cacm/cacm.derived.trec", "trecweb-wt10g/wt10g-sample-B01",
                  "trecweb-wt10g/wt10g-sample-B02", "trecweb-wt10g/wt10g-sample-B03"]:
            f = Path(d) / p
            if f.exists():
                texts.append(f.read_bytes().decode("utf-8", "replace"))
    if not texts:
        print("SKIPPED: shared data: vocabulary from the committed CACM copy only", file=sys.stderr)
        texts.append(gzip.open(REPO / "tests/data/cacm/cacm.trec.gz").read().decode("utf-8", "replace"))
    freq = Counter()
    for t in texts:
        t = re.sub(r"<[^>]*>", " ", t)
        freq.update(w.lower() for w in re.findall(r"[A-Za-z]{2,20}", t))
    return [w for w, _ in sorted(freq.items(), key=lambda x: (-x[1], x[0]))]


def write_corpus(path: Path, docs: int) -> None:
    vocab = np.array(vocabulary())
    cum = np.cumsum(1.0 / np.arange(1, len(vocab) + 1))
    rng = np.random.default_rng(42)
    with open(path, "w") as out:
        for start in range(0, docs, 1000):
            n = min(1000, docs - start)
            u = rng.random(n)
            lens = 50 + (u * u * 1125).astype(int)
            words = vocab[np.minimum(np.searchsorted(cum, rng.random(lens.sum()) * cum[-1]), len(vocab) - 1)]
            pos = 0
            for i, k in enumerate(lens):
                out.write(f"<DOC>\n<DOCNO>SYN-{start + i:09d}</DOCNO>\n<TEXT>\n")
                out.write(" ".join(words[pos:pos + k]))
                out.write("\n</TEXT>\n</DOC>\n")
                pos += k


def bench_index(docs: int, cli_dir: Path) -> Path:
    d = REPO / "target" / "bench-data" / f"python-search-{docs}"
    index = d / "index"
    if (index / "sieve.json").exists():
        print(f"reusing bench index {index}", file=sys.stderr)
        return index
    d.mkdir(parents=True, exist_ok=True)
    corpus = d / "corpus.trec"
    t = time.perf_counter()
    write_corpus(corpus, docs)
    print(f"wrote {docs} synthetic docs in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    subprocess.run([str(cli_dir / "sieve-index"), "build", "--input", str(corpus), "--index", str(index),
                    "--threads", "2", "--progress-every", "0"], check=True, stdout=subprocess.DEVNULL)
    corpus.unlink()
    return index


def topics_tsv(path: Path) -> Path:
    import pandas as pd

    frames = [sieve.read_topics(p) for p in sorted((REPO / "topics").glob("topics.web.*.txt"))]
    t = pd.concat(frames, ignore_index=True)
    assert len(t) == 200, len(t)
    with open(path, "w") as f:
        for q, text in zip(t.qid, t["query"]):
            f.write(f"{q}\t{text}\n")
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--bin-dir", type=Path, default=REPO / "target" / "release")
    a = ap.parse_args()
    cli = a.bin_dir / "sieve-search"
    index = bench_index(a.docs, a.bin_dir)
    work = Path(tempfile.mkdtemp(prefix="sieve-pybench-"))
    tsv = topics_tsv(work / "topics-200.tsv")
    idx = sieve.Index(index)
    topics = sieve.read_topics(tsv)
    print(f"index {index}: {idx.num_docs} docs; 200 topics; k1 0.9 b 0.4 top 1000; threads {a.threads}; "
          f"arrow docnos: {_frames.ARROW_STRINGS}; load average {os.getloadavg()}", file=sys.stderr)
    rows = {k: [] for k in ["cli", "cli search", "python search", "python end to end", "python search, str objects"]}
    for rep in range(a.reps):
        t = time.perf_counter()
        r = subprocess.run([str(cli), "run", "--index", str(index), "--topics", str(tsv), "--k1", "0.9",
                            "--b", "0.4", "--hits", "1000", "--threads", str(a.threads),
                            "--output", str(work / "cli.run")], check=True, capture_output=True, text=True)
        rows["cli"].append(time.perf_counter() - t)
        rows["cli search"].append(float(re.search(r" in ([0-9.]+)s", r.stderr).group(1)))

        t = time.perf_counter()
        res = idx.search(topics, threads=a.threads)
        rows["python search"].append(time.perf_counter() - t)
        assert len(res) > 0

        t = time.perf_counter()
        i2 = sieve.Index(index)
        tp = sieve.read_topics(tsv)
        res = i2.search(tp, threads=a.threads)
        sieve.write_run(res, work / "py.run")
        rows["python end to end"].append(time.perf_counter() - t)

        _frames.ARROW_STRINGS, saved = False, _frames.ARROW_STRINGS
        try:
            t = time.perf_counter()
            res2 = idx.search(topics, threads=a.threads)
            rows["python search, str objects"].append(time.perf_counter() - t)
        finally:
            _frames.ARROW_STRINGS = saved
        assert list(res2["docno"]) == list(res["docno"])
    same = (work / "py.run").read_bytes() == (work / "cli.run").read_bytes()
    med = {k: statistics.median(v) for k, v in rows.items()}
    ratio = lambda a_, b_: statistics.median(x / y for x, y in zip(rows[a_], rows[b_]))  # noqa: E731
    print(f"hits: {len(res)}; run files identical: {same}")
    print(f"{'measure':<30} {'median s':>9} {'ms/topic':>9}")
    for k, v in med.items():
        print(f"{k:<30} {v:9.4f} {v * 1000 / 200:9.3f}")
    print(f"python search / cli search:           {ratio('python search', 'cli search'):.3f}")
    print(f"python end to end / cli (process):    {ratio('python end to end', 'cli'):.3f}")
    print(f"python search, str objects / cli search: {ratio('python search, str objects', 'cli search'):.3f}")
    print(f"load average after: {os.getloadavg()}")
    if not same:
        sys.exit("the run file written from Python differs from the CLI's")


if __name__ == "__main__":
    main()
