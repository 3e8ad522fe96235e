#!/usr/bin/env python3
"""Convert TREC Web track XML topics (<topic number=N><query>...</query>) to classic TREC format.

    web_topics.py OUT.txt TOPICS.xml [...]

Writes `<top>\\n<num> Number: N\\n<title> QUERY\\n<desc> Description:\\nDESCRIPTION\\n<narr> Narrative:\\n</top>`
per topic, in the order read, so that Anserini (-topicReader Trec) and sieve-search read the same
queries. Exits non-zero if a file has no topics or a number repeats.
"""
import html
import re
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    seen = set()
    out = []
    for path in sys.argv[2:]:
        text = open(path, encoding="utf-8").read()
        topics = re.findall(r'<topic\s+number="(\d+)"[^>]*>(.*?)</topic>', text, re.S)
        if not topics:
            sys.exit(f"{path}: no <topic number=...> elements")
        for num, body in topics:
            if num in seen:
                sys.exit(f"{path}: topic {num} repeats")
            seen.add(num)
            q = re.search(r"<query>(.*?)</query>", body, re.S)
            d = re.search(r"<description>(.*?)</description>", body, re.S)
            query = " ".join(html.unescape(q.group(1)).split()) if q else ""
            desc = " ".join(html.unescape(d.group(1)).split()) if d else ""
            out.append(f"<top>\n<num> Number: {num}\n<title> {query}\n\n<desc> Description:\n{desc}\n\n<narr> Narrative:\n\n</top>\n\n")
    with open(sys.argv[1], "w", encoding="utf-8") as f:
        f.write("".join(out))
    print(f"{len(out)} topics -> {sys.argv[1]}")


if __name__ == "__main__":
    main()
