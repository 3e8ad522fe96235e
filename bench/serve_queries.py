#!/usr/bin/env python3
"""Write the load tools' queries: one URL-encoded query per line.

    python3 bench/serve_queries.py [OUT]        # default bench/serve-queries.txt

The titles (<query>) of the TREC Web Track 2009-2012 topics 1-200 (topics/topics.web.*.txt), in
topic order, then the 64 CACM queries (topics/topics.cacm.txt, each query's text on one line,
runs of white space made one space). Each is percent-encoded as a whole query-string value
(spaces as %20, nothing left unencoded but letters, digits and `-._~`), so a load tool appends
it to a base URL ending in `query=`. Python standard library only; fails if a file yields fewer
topics than it should.
"""
import html
import re
import sys
from pathlib import Path
from urllib.parse import quote

REPO = Path(__file__).resolve().parent.parent
WEB = ["topics.web.1-50.txt", "topics.web.51-100.txt", "topics.web.101-150.txt",
       "topics.web.151-200.txt"]


def web_titles(path):
    text = path.read_text(encoding="utf-8")
    titles = [html.unescape(q).strip() for q in re.findall(r"<query>(.*?)</query>", text, re.S)]
    if len(titles) != 50 or not all(titles):
        sys.exit(f"{path}: expected 50 non-empty <query> titles, found {len(titles)}")
    return titles


def cacm_queries(path):
    text = path.read_text(encoding="utf-8")
    docs = re.findall(r"<DOC>\s*<DOCNO>\s*\d+\s*</DOCNO>(.*?)</DOC>", text, re.S)
    queries = [" ".join(d.split()) for d in docs]
    if len(queries) != 64 or not all(queries):
        sys.exit(f"{path}: expected 64 non-empty CACM queries, found {len(queries)}")
    return queries


def main():
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "bench" / "serve-queries.txt"
    queries = [t for f in WEB for t in web_titles(REPO / "topics" / f)]
    queries += cacm_queries(REPO / "topics" / "topics.cacm.txt")
    with open(out, "w", encoding="ascii", newline="\n") as f:
        for q in queries:
            f.write(quote(q, safe="") + "\n")
    print(f"serve_queries: {len(queries)} queries to {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
