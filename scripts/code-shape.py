#!/usr/bin/env python3
"""Counts long functions, functions with many parameters and long files in
sieve's Rust sources (standard library only).

  python3 scripts/code-shape.py [--max-lines 80] [--max-params 6]
                                [--max-file-lines 700] [--list] [--json]
                                [--check] [--root DIR]

Reads every tracked `.rs` file of the repository (`git ls-files`; without
git, a walk of the tree), leaving out `target/` and `.venv*` folders, and
parses each one just enough: comments (nested), string literals (plain,
byte, C, raw with any number of `#`), char literals against lifetimes and
braces. A function is an `fn` item with a body (free functions, methods,
trait methods with a default body, nested functions); a declaration
without a body (`fn f(&self);`), a function-pointer type (`fn(u8)`), a
closure and anything inside `macro_rules!` are not. Its length runs from
the line of `fn` to the line of its closing brace, both included. Its
parameters are the entries of its parameter list, `self` in any form
(`self`, `&self`, `&'a mut self`, `self: Box<Self>`) left out.

The main figures cover library and binary code. Everything else is
counted in a second section so that nothing is hidden:
  * test: a file named `tests.rs` or `*_tests.rs`, a file under a `tests/`
    folder, a file whose every module declaration is under `#[cfg(test)]`
    or in a test file (`#[path]` included), and in other files every item
    or statement under `#[cfg(test)]` (or any `cfg` that needs `test`),
    `#[test]` or `#[bench]`;
  * bench: the `bench/` crate and every `benches/` folder;
  * example: every `examples/` folder;
  * fuzz: the `fuzz/` crate.
A file's lines outside tests are its lines less those of its test items
(attributes included); a file of the second section counts all its lines.

By default prints a summary and the offenders of library code, largest
first (the first ten of each kind); `--list` prints every offender of both
sections, one a line as `path:line name lines` or `path:line name params`;
`--json` prints the figures and every offender as JSON. The exit status is
0 unless `--check` is given: then 1 when library code has an offender.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field

# ---------------------------------------------------------------- lexing

ID, LIFETIME, LIT, PUNCT = "id", "lifetime", "lit", "punct"
TWO_CHAR_PUNCT = ("->", "=>", "::")
RAW_STRING = re.compile(r'[bc]?r(#*)"')


@dataclass
class Tok:
    text: str
    kind: str
    line: int


def _is_ident_start(c):
    return c == "_" or c.isalpha() or (ord(c) > 127 and c.isidentifier())


def _is_ident_char(c):
    return c == "_" or c.isalnum() or (ord(c) > 127 and ("a" + c).isidentifier())


def tokenize(src):
    """Splits Rust source into tokens; comments and whitespace are dropped,
    every literal is one `lit` token carrying the line it starts on."""
    toks = []
    i, n, line = 0, len(src), 1
    if src.startswith("#!") and not src.startswith("#!["):  # shebang line
        while i < n and src[i] != "\n":
            i += 1

    def string_end(j):
        """Index after the closing quote of a string whose body starts at j."""
        nonlocal line
        while j < n:
            c = src[j]
            if c == "\\":
                if j + 1 < n and src[j + 1] == "\n":
                    line += 1
                j += 2
                continue
            if c == "\n":
                line += 1
            elif c == '"':
                return j + 1
            j += 1
        return n

    def char_end(j):
        """Index after a char literal whose opening quote is at j, or None
        when the quote starts a lifetime or a label."""
        if j + 1 < n and src[j + 1] == "\\":
            k = j + 3  # past the quote, the backslash and the escaped char
            while k < n and src[k] != "'" and src[k] != "\n":
                k += 1
            return k + 1 if k < n and src[k] == "'" else None
        if j + 2 < n and src[j + 2] == "'" and src[j + 1] != "\n":
            return j + 3
        return None

    while i < n:
        c = src[i]
        if c == "\n":
            line += 1
            i += 1
            continue
        if c.isspace():
            i += 1
            continue
        if c == "/" and src.startswith("//", i):
            while i < n and src[i] != "\n":
                i += 1
            continue
        if c == "/" and src.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if src.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif src.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    if src[i] == "\n":
                        line += 1
                    i += 1
            continue
        start_line = line
        if c in "rbc":
            m = RAW_STRING.match(src, i)
            if m:
                closing = '"' + m.group(1)
                j = src.find(closing, m.end())
                j = n if j < 0 else j + len(closing)
                line += src.count("\n", i, j)
                toks.append(Tok(src[i:j], LIT, start_line))
                i = j
                continue
            if c in "bc" and i + 1 < n and src[i + 1] == '"':
                j = string_end(i + 2)
                toks.append(Tok(src[i:j], LIT, start_line))
                i = j
                continue
            if c == "b" and i + 1 < n and src[i + 1] == "'":
                j = char_end(i + 1)
                if j is not None:
                    toks.append(Tok(src[i:j], LIT, start_line))
                    i = j
                    continue
            if c == "r" and src.startswith("r#", i) and i + 2 < n and _is_ident_start(src[i + 2]):
                j = i + 2
                while j < n and _is_ident_char(src[j]):
                    j += 1
                toks.append(Tok(src[i + 2:j], ID, line))  # a raw identifier is the identifier
                i = j
                continue
        if _is_ident_start(c):
            j = i + 1
            while j < n and _is_ident_char(src[j]):
                j += 1
            toks.append(Tok(src[i:j], ID, line))
            i = j
            continue
        if c.isdigit():
            j = i + 1
            while j < n and (_is_ident_char(src[j]) or
                             (src[j] == "." and j + 1 < n and src[j + 1].isdigit())):
                j += 1
            toks.append(Tok(src[i:j], LIT, line))
            i = j
            continue
        if c == '"':
            j = string_end(i + 1)
            toks.append(Tok(src[i:j], LIT, start_line))
            i = j
            continue
        if c == "'":
            j = char_end(i)
            if j is not None:
                toks.append(Tok(src[i:j], LIT, line))
                i = j
                continue
            j = i + 1
            while j < n and _is_ident_char(src[j]):
                j += 1
            toks.append(Tok(src[i:j], LIFETIME, line))
            i = j
            continue
        if src[i:i + 2] in TWO_CHAR_PUNCT:
            toks.append(Tok(src[i:i + 2], PUNCT, line))
            i += 2
            continue
        toks.append(Tok(c, PUNCT, line))
        i += 1
    return toks


def match_brackets(toks):
    """For each opening bracket its closing one and the reverse (unbalanced
    ones run to the end); for each token the innermost `{` around it."""
    match, parent, stack = {}, [None] * len(toks), []
    closers = {")": "(", "]": "[", "}": "{"}
    for i, t in enumerate(toks):
        parent[i] = next((s for s in reversed(stack) if toks[s].text == "{"), None)
        if t.kind != PUNCT:
            continue
        if t.text in "([{":
            stack.append(i)
        elif t.text in closers:
            # pop to the matching opener, tolerating stray closers
            for depth in range(len(stack) - 1, -1, -1):
                if toks[stack[depth]].text == closers[t.text]:
                    for s in stack[depth + 1:]:
                        match[s] = i
                    match[stack[depth]], match[i] = i, stack[depth]
                    del stack[depth:]
                    break
    last = len(toks) - 1
    for s in stack:
        match[s] = last
    return match, parent


# --------------------------------------------------------------- parsing

QUALIFIERS = {"pub", "default", "async", "const", "unsafe", "extern", "safe"}
SEMICOLON_ITEMS = {"const", "static", "let", "use", "type"}
BLOCK_ITEMS = {"mod", "impl", "trait", "struct", "enum", "union"}
BLOCK_EXPRESSIONS = {"if", "match", "while", "for", "loop", "unsafe"}


@dataclass
class Function:
    name: str
    line: int
    lines: int
    params: int
    test: bool = False
    path: str = ""
    kind: str = "library"


@dataclass
class ModDecl:
    name: str
    path_attr: str | None
    test: bool


@dataclass
class FileShape:
    lines: int
    test_lines: int
    functions: list = field(default_factory=list)
    mods: list = field(default_factory=list)
    all_test: bool = False  # `#![cfg(test)]` at the top

    @property
    def code_lines(self):
        return self.lines - self.test_lines


class Parser:
    def __init__(self, src):
        self.src = src
        self.toks = tokenize(src)
        self.match, self.parent = match_brackets(self.toks)
        self.n = len(self.toks)

    def text(self, i):
        return self.toks[i].text if 0 <= i < self.n else ""

    def is_punct(self, i, s):
        return 0 <= i < self.n and self.toks[i].kind == PUNCT and self.toks[i].text == s

    def is_id(self, i, s=None):
        return 0 <= i < self.n and self.toks[i].kind == ID and (s is None or self.toks[i].text == s)

    def group_end(self, i):
        return self.match.get(i, self.n - 1)

    # -- attributes

    def attribute_at(self, i):
        """(content start, content end, closing bracket, inner) for an
        attribute whose `#` is at i, else None."""
        if not self.is_punct(i, "#"):
            return None
        j, inner = i + 1, False
        if self.is_punct(j, "!"):
            j, inner = j + 1, True
        if not self.is_punct(j, "["):
            return None
        end = self.group_end(j)
        return j + 1, end, end, inner

    def skip_attributes(self, i):
        while True:
            a = self.attribute_at(i)
            if a is None or a[3]:
                return i
            i = a[2] + 1

    def attributes_before(self, i):
        """Start indexes of the outer attributes just before token i
        (qualifiers such as `pub(crate)` between them and i skipped)."""
        j = i - 1
        while j >= 0:
            if self.is_punct(j, ")") and self.is_id(self.match.get(j, -1) - 1, "pub"):
                j = self.match[j] - 2
            elif self.is_id(j) and self.text(j) in QUALIFIERS:
                j -= 1
            elif self.toks[j].kind == LIT and self.is_id(j - 1, "extern"):
                j -= 1
            else:
                break
        found = []
        while j >= 0 and self.is_punct(j, "]"):
            o = self.match.get(j)
            if o is None or not self.is_punct(o - 1, "#"):
                break
            found.append(o - 1)
            j = o - 2
        return found

    def is_test_attribute(self, start, end):
        """`#[test]`, `#[bench]`, `#[tokio::test]` or a `cfg` that is false
        without `test`."""
        body = self.toks[start:end]
        texts = [t.text for t in body]
        if texts and texts[-1] in ("test", "bench") and all(
                t in ("::",) or t.isidentifier() for t in texts):
            return True
        if len(texts) >= 3 and texts[0] == "cfg" and texts[1] == "(":
            value, _ = self._cfg(body, 2)
            return value is False
        return False

    def _cfg(self, body, k):
        """Evaluates a cfg predicate with `test` off and every other option
        unknown (None): returns (True/False/None, index after it)."""
        if k >= len(body):
            return None, k
        name = body[k].text
        k += 1
        if k < len(body) and body[k].text == "=":
            return None, k + 2
        if k < len(body) and body[k].text == "(":
            k += 1
            args = []
            while k < len(body) and body[k].text != ")":
                v, k = self._cfg(body, k)
                args.append(v)
                if k < len(body) and body[k].text == ",":
                    k += 1
            k += 1
            if name == "all":
                return (False if False in args else None if None in args else True), k
            if name == "any":
                return (True if True in args else None if None in args else False), k
            if name == "not" and args:
                return (None if args[0] is None else not args[0]), k
            return None, k
        return (False if name == "test" else None), k

    # -- items

    def skip_qualifiers(self, k):
        while k < self.n:
            if self.is_id(k, "pub") and self.is_punct(k + 1, "("):
                k = self.group_end(k + 1) + 1
            elif self.is_id(k, "extern") and k + 1 < self.n and self.toks[k + 1].kind == LIT:
                k += 2
            elif self.is_id(k, "const") and not self.is_id(k + 1, "fn") and not (
                    self.is_id(k + 1) and self.text(k + 1) in QUALIFIERS):
                return k  # `const NAME`: an item, not a qualifier
            elif self.is_id(k) and self.text(k) in QUALIFIERS:
                k += 1
            else:
                return k
        return k

    def fn_signature(self, k):
        """For `fn` at k followed by a name: (name, params, body open, body
        close) where the body indexes are None for a declaration; None
        when k is no function item (a function-pointer type)."""
        if not (self.is_id(k, "fn") and self.is_id(k + 1)):
            return None
        m = k + 2
        if self.is_punct(m, "<"):
            m = self.skip_angles(m)
        if not self.is_punct(m, "("):
            return None
        close = self.group_end(m)
        params = self.count_params(m + 1, close)
        m, angle = close + 1, 0
        while m < self.n:
            t = self.toks[m]
            if t.kind == PUNCT:
                if t.text in "([":
                    m = self.group_end(m) + 1
                    continue
                if t.text == "<":
                    angle += 1
                elif t.text == ">":
                    angle = max(0, angle - 1)
                elif t.text == "{":
                    if angle:
                        m = self.group_end(m) + 1
                        continue
                    return self.toks[k + 1].text, params, m, self.group_end(m)
                elif t.text == ";" and not angle:
                    return self.toks[k + 1].text, params, None, m
                elif t.text in ")]}":
                    return self.toks[k + 1].text, params, None, m - 1
            m += 1
        return self.toks[k + 1].text, params, None, self.n - 1

    def skip_angles(self, m):
        depth = 0
        while m < self.n:
            t = self.toks[m]
            if t.kind == PUNCT:
                if t.text in "([{":
                    m = self.group_end(m) + 1
                    continue
                if t.text == "<":
                    depth += 1
                elif t.text == ">":
                    depth -= 1
                    if depth <= 0:
                        return m + 1
                elif t.text in ")]}":
                    return m
            m += 1
        return m

    def count_params(self, start, end):
        segments, cur, angle, m = [], [], 0, start
        while m < end:
            t = self.toks[m]
            if t.kind == PUNCT and t.text in "([{":
                cur.append(t)
                m = self.group_end(m) + 1
                continue
            if t.kind == PUNCT and t.text == "<":
                angle += 1
            elif t.kind == PUNCT and t.text == ">":
                angle = max(0, angle - 1)
            elif t.kind == PUNCT and t.text == "," and not angle:
                segments.append(cur)
                cur = []
                m += 1
                continue
            cur.append(t)
            m += 1
        if cur:
            segments.append(cur)
        return sum(1 for s in segments if not self.is_self(s))

    @staticmethod
    def is_self(seg):
        k = 0
        while k + 1 < len(seg) and seg[k].text == "#" and seg[k + 1].text == "[":
            k += 2  # a parameter attribute (its bracket group is one token here)
        while k < len(seg) and (seg[k].text in ("&", "mut") or seg[k].kind == LIFETIME):
            k += 1
        return k < len(seg) and seg[k].text == "self"

    def item_end(self, j):
        """Index of the last token of the item (or statement, field, variant)
        that starts at j, its outer attributes already skipped."""
        k = self.skip_qualifiers(j)
        kw = self.text(k)
        if kw == "fn":
            sig = self.fn_signature(k)
            if sig:
                return sig[3]
        if self.is_id(k) and (kw in SEMICOLON_ITEMS or (kw == "extern" and self.is_id(k + 1, "crate"))):
            return self.scan_to(k, stop_at_brace=False)
        if self.is_id(k) and kw in BLOCK_ITEMS | {"fn"}:
            return self.scan_to(k, stop_at_brace=True)
        if self.is_id(k) and self.is_punct(k + 1, "!"):  # a macro call
            m = k + 2
            if self.is_id(m):
                m += 1  # macro_rules! name
            if self.is_punct(m, "{") or self.is_punct(m, "(") or self.is_punct(m, "["):
                e = self.group_end(m)
                return e + 1 if self.is_punct(e + 1, ";") else e
        if (self.is_id(k) and kw in BLOCK_EXPRESSIONS) or self.is_punct(k, "{"):
            return self.block_expression_end(k)
        return self.scan_to(k, stop_at_brace=False, stop_at_comma=True)

    def block_expression_end(self, m):
        """End of a statement such as `if .. { } else { }`, `match .. { }`
        or `{ }`: its last brace group not followed by `else`."""
        while m < self.n:
            t = self.toks[m]
            if t.kind == PUNCT and t.text == "{":
                e = self.group_end(m)
                if self.is_id(e + 1, "else"):
                    m = e + 2
                    continue
                return e + 1 if self.is_punct(e + 1, ";") else e
            if t.kind == PUNCT and t.text in "([":
                m = self.group_end(m) + 1
                continue
            if t.kind == PUNCT and t.text in ";)]}":
                return m if t.text == ";" else m - 1
            m += 1
        return self.n - 1

    def scan_to(self, m, stop_at_brace, stop_at_comma=False):
        while m < self.n:
            t = self.toks[m]
            if t.kind == PUNCT:
                if t.text == "{" and stop_at_brace:
                    return self.group_end(m)
                if t.text in "([{":
                    m = self.group_end(m) + 1
                    continue
                if t.text == ";":
                    return m
                if t.text == "," and stop_at_comma:
                    return m - 1
                if t.text in ")]}":
                    return m - 1
            m += 1
        return self.n - 1

    def impl_name(self, k, body):
        """The self type of `impl ... {` (its last path segment) or the name
        of `trait Name`."""
        if self.is_id(k, "trait"):
            return self.text(k + 1)
        m = k + 1
        if self.is_punct(m, "<"):
            m = self.skip_angles(m)
        seg, angle = [], 0
        for t in self.toks[m:body]:
            if t.text == "where" and not angle:
                break
            if t.text == "<":
                angle += 1
            elif t.text == ">":
                angle -= 1
            elif t.text == "for" and not angle:
                seg = []
                continue
            if not angle and t.kind == ID and t.text not in ("dyn", "mut", "impl"):
                seg.append(t.text)
        return seg[-1] if seg else "?"

    # -- the whole file

    def analyse(self):
        toks, n = self.toks, self.n
        skip_until = -1  # inside macro_rules!
        test_ranges = []  # (first token, last token)
        all_test = False
        owners = {}  # body `{` of impl/trait/fn -> name
        fns = []
        mods = []
        for i in range(n):
            if i <= skip_until:
                continue
            t = toks[i]
            if t.kind == ID and t.text == "macro_rules" and self.is_punct(i + 1, "!"):
                m = i + 2 + (1 if self.is_id(i + 2) else 0)
                if m < n and toks[m].text in "({[":
                    skip_until = self.group_end(m)
                continue
            a = self.attribute_at(i)
            if a is not None:
                start, end, close, inner = a
                if self.is_test_attribute(start, end):
                    if inner:
                        block = self.parent[i]
                        if block is None:
                            all_test = True
                        else:
                            test_ranges.append((block, self.group_end(block)))
                    else:
                        j = self.skip_attributes(close + 1)
                        test_ranges.append((i, self.item_end(j)))
                continue
            if t.kind != ID:
                continue
            if t.text in ("impl", "trait") and self.is_item_start(i):
                e = self.scan_to(i, stop_at_brace=True)
                if self.is_punct(e, "}"):
                    owners[self.match[e]] = self.impl_name(i, self.match[e])
            elif t.text == "mod" and self.is_id(i + 1) and self.is_punct(i + 2, ";"):
                path_attr = None
                for s in self.attributes_before(i):
                    body = [x.text for x in toks[s + 2:self.group_end(s + 1)]]
                    if len(body) == 3 and body[0] == "path" and body[1] == "=":
                        path_attr = body[2].strip('"')
                mods.append((i, toks[i + 1].text, path_attr))
            elif t.text == "fn":
                sig = self.fn_signature(i)
                if sig is None or sig[2] is None:
                    continue
                name, params, open_, close = sig
                owners[open_] = name
                fns.append((i, name, params, open_, close))

        def in_test(i):
            return all_test or any(s <= i <= e for s, e in test_ranges)

        functions = []
        for i, name, params, open_, close in fns:
            owner = self.parent[i]
            qual = name
            while owner is not None and owner not in owners:
                owner = self.parent[owner]
            if owner is not None:
                qual = owners[owner] + "::" + name
            functions.append(Function(
                name=qual, line=toks[i].line,
                lines=toks[close].line - toks[i].line + 1,
                params=params, test=in_test(i)))
        mod_decls = [ModDecl(name, p, in_test(i)) for i, name, p in mods]

        total = self.src.count("\n") + (1 if self.src and not self.src.endswith("\n") else 0)
        test_lines = set()
        for s, e in test_ranges:
            test_lines.update(range(toks[s].line, toks[e].line + 1))
        if all_test:
            test_lines = set(range(1, total + 1))
        return FileShape(lines=total, test_lines=len(test_lines), functions=functions,
                         mods=mod_decls, all_test=all_test)

    def is_item_start(self, i):
        """Whether the keyword at i starts an item (not `impl Trait` in a type)."""
        j = i - 1
        while j >= 0 and (self.is_id(j) and self.text(j) in QUALIFIERS or self.is_punct(j, ")") and
                          self.is_id(self.match.get(j, -1) - 1, "pub")):
            j = self.match[j] - 2 if self.is_punct(j, ")") else j - 1
        return j < 0 or self.toks[j].text in (";", "{", "}", "]")


def analyse_source(src):
    """The shape of one file's source: lines, test lines, functions, `mod x;`."""
    return Parser(src).analyse()


# ------------------------------------------------------------ the tree

SKIP_DIRS = {"target", "node_modules", "__pycache__"}


def list_rust_files(root):
    """Tracked `.rs` files (relative, `/`-separated), else a walk of the tree."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--", "*.rs"],
                             capture_output=True, check=True).stdout.decode()
        files = [f for f in out.split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
    if not files:
        for d, dirs, names in os.walk(root):
            dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS and not x.startswith("."))
            for name in sorted(names):
                if name.endswith(".rs"):
                    files.append(os.path.relpath(os.path.join(d, name), root).replace(os.sep, "/"))
    keep = []
    for f in files:
        parts = f.split("/")
        if any(p in SKIP_DIRS or p.startswith(".venv") for p in parts[:-1]):
            continue
        if os.path.isfile(os.path.join(root, f)):
            keep.append(f)
    return sorted(keep)


def path_kind(rel):
    """The section of a file from its path alone: fuzz, bench, example,
    test or library."""
    parts = rel.split("/")
    dirs, name = parts[:-1], parts[-1]
    if parts[0] == "fuzz" or "fuzz_targets" in dirs:
        return "fuzz"
    if parts[0] == "bench" or "benches" in dirs:
        return "bench"
    if "examples" in dirs:
        return "example"
    if "tests" in dirs or name == "tests.rs" or name.endswith("_tests.rs"):
        return "test"
    return "library"


def module_files(rel, decl, files):
    """The file a `mod name;` of file rel stands for (one of files), or None."""
    d, name = os.path.split(rel)
    stem = name[:-3]
    if decl.path_attr:
        p = os.path.normpath(os.path.join(d, decl.path_attr)).replace(os.sep, "/")
        return p if p in files else None
    if stem in ("mod", "lib", "main"):
        bases = [d]
    else:  # a non-mod.rs file; a crate root with another name uses its own folder
        bases = [os.path.join(d, stem), d]
    for b in bases:
        for c in (f"{decl.name}.rs", f"{decl.name}/mod.rs"):
            p = os.path.normpath(os.path.join(b, c)).replace(os.sep, "/")
            if p in files:
                return p
    return None


SECTIONS = ("library", "test", "bench", "example", "fuzz")


def analyse_tree(root):
    files = list_rust_files(root)
    shapes = {}
    for rel in files:
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            shapes[rel] = analyse_source(f.read())
    kinds = {rel: path_kind(rel) for rel in files}
    fileset = set(files)
    # files of test modules (`#[cfg(test)] mod x;`) and their submodules: a
    # file is a test file when every module declaration of it is a test one
    # (a library file may also be read by a test through `#[path]`)
    declared_by = {}
    for rel, shape in shapes.items():
        for decl in shape.mods:
            child = module_files(rel, decl, fileset)
            if child and child != rel:
                declared_by.setdefault(child, []).append((rel, decl.test))
    changed = True
    while changed:
        changed = False
        for child, decls in declared_by.items():
            if kinds[child] == "library" and all(
                    test or kinds[parent] == "test" for parent, test in decls):
                kinds[child] = "test"
                changed = True
    for rel in files:
        if kinds[rel] == "library" and shapes[rel].all_test:
            kinds[rel] = "test"
    functions = []
    for rel in files:
        for fn in shapes[rel].functions:
            fn.path = rel
            fn.kind = kinds[rel] if kinds[rel] != "library" else ("test" if fn.test else "library")
            functions.append(fn)
    return files, shapes, kinds, functions


def summarise(root, max_lines, max_params, max_file_lines):
    files, shapes, kinds, functions = analyse_tree(root)
    sections = {}
    for s in SECTIONS:
        fns = [f for f in functions if f.kind == s]
        if s == "library":
            sfiles = [(r, shapes[r].code_lines) for r in files if kinds[r] == "library"]
        else:
            sfiles = [(r, shapes[r].lines) for r in files if kinds[r] == s]
            if s == "test":  # inline test items of library files
                inline = sum(shapes[r].test_lines for r in files if kinds[r] == "library")
        long_fns = sorted((f for f in fns if f.lines > max_lines),
                          key=lambda f: (-f.lines, f.path, f.line))
        many = sorted((f for f in fns if f.params > max_params),
                      key=lambda f: (-f.params, f.path, f.line))
        big = sorted(((r, n) for r, n in sfiles if n > max_file_lines), key=lambda x: (-x[1], x[0]))
        sec = {
            "files": len(sfiles),
            "lines": sum(n for _, n in sfiles) + (inline if s == "test" else 0),
            "functions": len(fns),
            "long_functions": len(long_fns),
            "long_share": (len(long_fns) / len(fns)) if fns else 0.0,
            "many_params": len(many),
            "long_files": len(big),
            "offenders": {
                "long_functions": [fn_json(f) for f in long_fns],
                "many_params": [fn_json(f) for f in many],
                "long_files": [{"path": r, "lines": n} for r, n in big],
            },
        }
        if s == "test":
            sec["inline_test_lines"] = inline
        sections[s] = sec
    return {
        "root": os.path.abspath(root),
        "rust_files": len(files),
        "limits": {"max_lines": max_lines, "max_params": max_params, "max_file_lines": max_file_lines},
        "sections": sections,
    }


def fn_json(f):
    return {"path": f.path, "line": f.line, "name": f.name, "lines": f.lines, "params": f.params}


# --------------------------------------------------------------- output

def pct(x):
    return f"{100 * x:.1f}%"


def print_report(rep, full):
    lim = rep["limits"]
    lib = rep["sections"]["library"]
    print(f"code shape: {rep['rust_files']} Rust files under {rep['root']}")
    print(f"limits: functions over {lim['max_lines']} lines or over {lim['max_params']} parameters, "
          f"files over {lim['max_file_lines']} lines outside tests")
    print()
    print("library and binary code (crate sources, cli/, python/src/), tests left out:")
    print(f"  files                    {lib['files']:6}  ({lib['lines']} lines outside tests)")
    print(f"  functions                {lib['functions']:6}")
    print(f"  over {lim['max_lines']} lines            {lib['long_functions']:6}  "
          f"({pct(lib['long_share'])} of functions)")
    print(f"  over {lim['max_params']} parameters        {lib['many_params']:6}")
    print(f"  files over {lim['max_file_lines']} lines     {lib['long_files']:6}")
    print()
    print("counted apart (all their lines):")
    print(f"  {'section':8} {'files':>6} {'lines':>7} {'functions':>9} "
          f"{'>' + str(lim['max_lines']) + ' lines':>10} {'>' + str(lim['max_params']) + ' params':>10} "
          f"{'files>' + str(lim['max_file_lines']):>10}")
    for s in SECTIONS[1:]:
        sec = rep["sections"][s]
        print(f"  {s:8} {sec['files']:6} {sec['lines']:7} {sec['functions']:9} "
              f"{sec['long_functions']:10} {sec['many_params']:10} {sec['long_files']:10}")
    t = rep["sections"]["test"]
    print(f"  (test counts the {t['inline_test_lines']} lines of test items inside library files; "
          f"its files column does not)")
    shown = SECTIONS if full else ("library",)
    cap = None if full else 10
    for s in shown:
        off = rep["sections"][s]["offenders"]
        label = "library" if s == "library" else s
        blocks = [
            (f"functions over {lim['max_lines']} lines", off["long_functions"],
             lambda f: f"{f['path']}:{f['line']} {f['name']} {f['lines']} lines"),
            (f"functions over {lim['max_params']} parameters", off["many_params"],
             lambda f: f"{f['path']}:{f['line']} {f['name']} {f['params']} params"),
            (f"files over {lim['max_file_lines']} lines", off["long_files"],
             lambda f: f"{f['path']} {f['lines']} lines"),
        ]
        for title, items, fmt in blocks:
            if not items:
                continue
            print()
            more = f" (first {cap}; --list for all)" if cap and len(items) > cap else ""
            print(f"{label}: {title}, largest first{more}:")
            for it in items[:cap]:
                print("  " + fmt(it))


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=os.path.dirname(here),
                    help="the repository (default: the folder above scripts/)")
    ap.add_argument("--max-lines", type=int, default=80, help="longest function allowed (lines)")
    ap.add_argument("--max-params", type=int, default=6, help="most parameters allowed")
    ap.add_argument("--max-file-lines", type=int, default=700,
                    help="longest file allowed (lines outside tests)")
    ap.add_argument("--list", action="store_true", help="print every offender of every section")
    ap.add_argument("--json", action="store_true", help="print the figures and offenders as JSON")
    ap.add_argument("--check", action="store_true",
                    help="exit with status 1 when library code has an offender")
    args = ap.parse_args(argv)
    rep = summarise(args.root, args.max_lines, args.max_params, args.max_file_lines)
    try:
        if args.json:
            json.dump(rep, sys.stdout, indent=1)
            print()
        else:
            print_report(rep, args.list)
    except BrokenPipeError:  # `| head`
        sys.stderr.close()
    lib = rep["sections"]["library"]
    if args.check and (lib["long_functions"] or lib["many_params"] or lib["long_files"]):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
