#!/usr/bin/env python3
"""Compares two outputs of scripts/demo.sh (SIEVE_DEMO_OUT=A, then B) and
says whether they are the same except for what must differ between two
runs: tantivy segment ids (random per build: files named by them are paired
in sorted order) and the order of tantivy's list of managed files, wall-clock times, the output directory's own path,
and the seals and byte counts that cover those.

    python3 scripts/demo-compare.py /tmp/demo-before /tmp/demo-after

Exit status 0 when every file matches after normalising, 1 otherwise (each
differing file is named)."""

import gzip
import re
import sys
from pathlib import Path

SEGMENT = re.compile(r"[0-9a-f]{32}")
SEGMENT_B = re.compile(rb"[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
# Lines or JSON members that hold a time or a seal of bytes that hold one.
VOLATILE = [
    re.compile(rb'"(seconds|started|finished|elapsed_s|wall_seconds|time)": ?[0-9.eE+-]+,?'),
    re.compile(rb"sieve-seal crc32=[0-9a-f]+ bytes=[0-9]+"),
    re.compile(rb'"crc32": ?"[0-9a-f]+",\s*"bytes": ?[0-9]+'),
    re.compile(rb"[0-9.]+ ?(s|ms|seconds)\b"),
]


def files(root):
    """Relative path -> file; a segment id in a path is replaced by its rank
    among the ids of its top folder (one index each)."""
    out = {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*")) if p.is_file()}
    ids = {}
    for rel in out:
        for sid in SEGMENT.findall(rel):
            ids.setdefault(rel.split("/")[0], set()).add(sid)
    name = {sid: f"SEGMENT{i}" for sids in ids.values() for i, sid in enumerate(sorted(sids))}
    return {SEGMENT.sub(lambda m: name.get(m.group(0), m.group(0)), r): p for r, p in out.items()}


def content(p, root):
    data = p.read_bytes()
    if p.suffix == ".gz":
        data = gzip.decompress(data)
    data = data.replace(str(root).encode(), b"OUT")
    data = SEGMENT_B.sub(b"SEGMENT", data)
    for rx in VOLATILE:
        data = rx.sub(b"VOLATILE", data)
    if p.name == ".managed.json":
        # tantivy's list of the files it manages, in hash-set order.
        data = b"\n".join(sorted(data.strip().strip(b"[]").split(b",")))
    return data


def main():
    a, b = Path(sys.argv[1]), Path(sys.argv[2])
    fa, fb = files(a), files(b)
    bad = sorted(set(fa) ^ set(fb))
    for rel in bad:
        print(f"only in {'A' if rel in fa else 'B'}: {rel}")
    same = 0
    for rel in sorted(set(fa) & set(fb)):
        if content(fa[rel], a) == content(fb[rel], b):
            same += 1
        else:
            bad.append(rel)
            print(f"differs: {rel}")
    print(f"{same} files the same after normalising ids, times and paths; {len(bad)} differ")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
