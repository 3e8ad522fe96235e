#!/usr/bin/env python3
"""Writes the hand-made ClueWeb22 fixtures of this directory (and the JSON
lines and TSV fixtures of ../jsonl and ../tsv). Every page, id, URL and text
here was made up by hand for sieve; nothing is ClueWeb22 content.

The layout follows the dataset's published description and readers:
* html/en0000-00.warc.gz: WARC/1.0 `response` records, one gzip member per
  record, whose WARC Content-Type is text/html and whose block is the bare
  HTML (no HTTP head), with the ClueWeb22 headers ClueWeb22-ID, URL-Hash and
  Language next to the usual WARC ones (names as read by
  heinrichreimer/ir-datasets-clueweb22 0.1.0 `_read_html`; the block as
  lemurproject/ClueWeb22 `ClueWeb22Api.get_html_from_warc` returns it: the
  bytes after the WARC header).
* html/en0000-00.warc.offset: the compressed offset of each record, as
  `%010d\n` lines, plus one line for the end of the file
  (ClueWeb22Api reads line doc and doc+1 as start and end).
* txt/en0000-00.json.gz and txt/en0000-00.offset: one JSON object per line,
  one gzip member per line, keys URL (with the trailing newline the real
  files have), URL-hash, Language, ClueWeb22-ID, Clean-Text.

Run from tests/data/clueweb22: python3 ../hand-made-fixtures.py (deterministic: gzip mtime 0).
"""
import gzip
import hashlib
import json
import os

PAGES = [
    ("clueweb22-en0000-00-00000", "https://sieve.example/fixtures/first", "en",
     "5d2a7b6e-1b0e-4a61-9c1d-000000000000",
     b"<html><head><title>Sieve fixture one</title></head>"
     b"<body><p>Encoding errors and spam in web crawls.</p>"
     b"<p>A made-up page for the ClueWeb22 reader.</p></body></html>",
     "Sieve fixture one\nEncoding errors and spam in web crawls.\nA made-up page for the ClueWeb22 reader."),
    ("clueweb22-en0000-00-00001", "https://sieve.example/fixtures/second,with-comma", "en",
     "5d2a7b6e-1b0e-4a61-9c1d-000000000001",
     b"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Broken bytes</title></head>"
     b"<body><p>caf\xc3\xa9 and a stray \x80 continuation byte, and an overlong \xc0\x80 nul.</p></body></html>",
     "Broken bytes\ncaf\u00e9 and a stray continuation byte."),
    ("clueweb22-en0000-00-00002", "https://sieve.example/fixtures/third", "fr",
     "5d2a7b6e-1b0e-4a61-9c1d-000000000002",
     b"<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1252\">"
     b"<title>Fran\xe7ais</title></head><body><p>Une page fran\xe7aise, \x93cod\xe9e\x94 en windows-1252.</p></body></html>",
     "Fran\u00e7ais\nUne page fran\u00e7aise."),
]


def url_hash(url):
    # ClueWeb22's URL hashes are 32 upper-case hex digits; MD5 stands in.
    return hashlib.md5(url.encode()).hexdigest().upper()


def member(data):
    return gzip.compress(data, compresslevel=6, mtime=0)


def write_offsets(path, members):
    offsets, at = [], 0
    for m in members:
        offsets.append(at)
        at += len(m)
    offsets.append(at)
    with open(path, "w") as f:
        f.write("".join("%010d\n" % o for o in offsets))


def html_part():
    members = []
    for i, (docid, url, lang, uuid, html, _) in enumerate(PAGES):
        head = (
            "WARC/1.0\r\n"
            "WARC-Type: response\r\n"
            f"ClueWeb22-ID: {docid}\r\n"
            f"WARC-Target-URI: {url}\r\n"
            f"URL-Hash: {url_hash(url)}\r\n"
            f"Language: {lang}\r\n"
            f"WARC-Date: 2022-08-24T01:39:5{i}.761009Z\r\n"
            f"WARC-Record-ID: <urn:uuid:{uuid}>\r\n"
            f"WARC-Payload-Digest: sha1:{hashlib.sha1(html).hexdigest()}\r\n"
            "Content-Type: text/html\r\n"
            f"Content-Length: {len(html)}\r\n"
            "\r\n"
        ).encode()
        members.append(member(head + html + b"\r\n\r\n"))
    os.makedirs("html", exist_ok=True)
    with open("html/en0000-00.warc.gz", "wb") as f:
        f.write(b"".join(members))
    write_offsets("html/en0000-00.warc.offset", members)


def txt_part():
    members = []
    for docid, url, lang, _, _, text in PAGES:
        rec = {
            "URL": url.split(",")[0] + "\n",
            "URL-hash": url_hash(url),
            "Language": lang,
            "ClueWeb22-ID": docid,
            "Clean-Text": text,
        }
        members.append(member(json.dumps(rec, ensure_ascii=False).encode() + b"\n"))
    os.makedirs("txt", exist_ok=True)
    with open("txt/en0000-00.json.gz", "wb") as f:
        f.write(b"".join(members))
    write_offsets("txt/en0000-00.offset", members)


def jsonl_fixtures():
    # Anserini JsonCollection: {"id", "contents"}, plain, with one malformed
    # line, one blank line, escapes (a lone surrogate among them).
    lines = [
        b'{"id": "doc1", "contents": "The quick brown fox jumps over the lazy dog."}\n',
        b'{"id": "doc2", "contents": "Escapes: \\"quoted\\", tab\\there, caf\\u00e9, \\ud83d\\ude00 and a lone \\ud800 surrogate."}\n',
        b'\n',
        b'{"id": "doc3", "contents": "unterminated string}\n',
        b'{"id": 4, "contents": "A numeric id, and a raw invalid byte \xff here."}\n',
        b'{"id": "doc5"}\n',
        b'{"contents": "no id at all"}\n',
        b'{"id": "doc6", "contents": "Nested values of other keys are skipped.", "extra": {"a": [1, {"b": "}"}]}}\r\n',
    ]
    with open("../jsonl/anserini.jsonl", "wb") as f:
        f.write(b"".join(lines))
    # BEIR corpus.jsonl: {"_id", "title", "text", "metadata"}, one gzip stream.
    beir = [
        {"_id": "beir-1", "title": "Malformed UTF-8", "text": "Counting invalid byte sequences in crawled pages.", "metadata": {}},
        {"_id": "beir-2", "title": "", "text": "A passage without a title about spam filtering.", "metadata": {"url": "x"}},
        {"_id": "beir-3", "title": "Web spam", "text": "Spam pages and their encodings.", "metadata": {}},
    ]
    data = b"".join(json.dumps(r).encode() + b"\n" for r in beir)
    with open("../jsonl/beir-corpus.jsonl.gz", "wb") as f:
        f.write(gzip.compress(data, mtime=0))


def tsv_fixtures():
    # MS MARCO collection.tsv style: pid<TAB>passage, plain; one line
    # without a tab (malformed), one with an empty passage.
    lines = [
        b"0\tThe presence of communication amid scientific minds was equally important.\n",
        b"1\tThe Manhattan Project and its atomic bomb helped bring an end to World War II.\n",
        b"2 a line without any tab\n",
        b"3\t\n",
        b"4\tA passage with a\ttab inside it, and caf\xc3\xa9.\n",
    ]
    with open("../tsv/collection.tsv", "wb") as f:
        f.write(b"".join(lines))
    # MS MARCO msmarco-docs.tsv style: id, url, title, body; gzipped.
    docs = [
        b"D1\thttps://sieve.example/d1\tFirst document\tBody text of the first document.\n",
        b"D2\thttps://sieve.example/d2\tSecond document\tBody of the second one.\n",
    ]
    with open("../tsv/msmarco-docs.tsv.gz", "wb") as f:
        f.write(gzip.compress(b"".join(docs), mtime=0))


if __name__ == "__main__":
    html_part()
    txt_part()
    jsonl_fixtures()
    tsv_fixtures()
