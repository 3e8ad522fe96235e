"""Writes the docid seeds of the crawl reader fuzz targets: for each reader
(jsonl_reader, tsv_reader, trec_reader, smart_reader, warc_reader) one
input whose docids hold, one per record, every Unicode White_Space and
every control character (category Cc), between two letters; the readers
must skip each of them as a bad docid. Each input is what follows the
target's own prefix (`{`, `id<TAB>`, `<DOC>`, `.I 1\\n`; none for WARC).

    python3 fuzz/seeds/docids/make_seeds.py   # from the repository root
"""
import json
import os

WHITE = [0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B),
         0x2028, 0x2029, 0x202F, 0x205F, 0x3000]
CONTROL = [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0)]
CHARS = sorted(set(WHITE + CONTROL))
HERE = os.path.dirname(os.path.abspath(__file__))


def ids(cannot=""):
    return ["a" + chr(c) + "b" for c in CHARS if chr(c) not in cannot]


def write(target, text):
    os.makedirs(os.path.join(HERE, target), exist_ok=True)
    with open(os.path.join(HERE, target, "docids"), "wb") as f:
        f.write(text.encode("utf-8"))


def main():
    # JSON: every id escaped (\u0000), then every id raw where JSON allows it.
    lines = [json.dumps({"id": i, "contents": "x"}) for i in ids()]
    lines += [json.dumps({"id": i, "contents": "x"}, ensure_ascii=False) for i in ids()]
    write("jsonl_reader", '"id":"ok","contents":"x"}\n' + "\n".join(lines) + "\n")
    write("tsv_reader", "x\n" + "".join(f"{i}\tx\n" for i in ids("\t\n")))
    write("trec_reader", "<DOCNO>ok</DOCNO>x</DOC>\n"
          + "".join(f"<DOC><DOCNO>{i}</DOCNO>x</DOC>\n" for i in ids()))
    write("smart_reader", ".W\nx\n" + "".join(f".I {i}\n.W\nx\n" for i in ids("\n")))
    recs = []
    http = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>x</p>"
    for n, i in enumerate(ids("\r\n")):
        for head in (f"WARC-TREC-ID: {i}\r\nWARC-Record-ID: <r{n}>",
                     f"ClueWeb22-ID: {i}\r\nWARC-Record-ID: <c{n}>",
                     f"WARC-Record-ID: <{i}>"):
            recs.append(f"WARC/1.0\r\nWARC-Type: response\r\n{head}\r\nContent-Length: "
                        f"{len(http.encode())}\r\n\r\n{http}\r\n\r\n")
    write("warc_reader", "".join(recs))


if __name__ == "__main__":
    main()
