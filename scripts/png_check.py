#!/usr/bin/env python3
"""Checks that PNG screenshots are not blank and have the expected size
(used by scripts/test-browser.sh; standard library only).

  png_check.py FILE WIDTH HEIGHT [MIN_INK] [MIN_HUES]

Decodes the PNG (8-bit RGB or RGBA, non-interlaced, as Chromium writes
them), then requires: the size is WIDTH x HEIGHT; at least MIN_INK
(default 0.02) of the pixels are not near-white; at least MIN_HUES
(default 2) of twelve 30-degree hue sectors hold 40 or more clearly
coloured pixels (so a grey or one-colour page fails). Prints one line
with the figures; exit status 1 on failure.
"""
import struct
import sys
import zlib


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG")
    pos, idat, head = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + n
    w, h, depth, colour, _, _, interlace = head
    if depth != 8 or colour not in (2, 6) or interlace:
        raise SystemExit(f"{path}: unsupported PNG (depth {depth}, colour type {colour}, interlace {interlace})")
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = w * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def main():
    path, want_w, want_h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    min_ink = float(sys.argv[4]) if len(sys.argv) > 4 else 0.02
    min_hues = int(sys.argv[5]) if len(sys.argv) > 5 else 2
    w, h, bpp, rows = decode(path)
    ink, sectors = 0, [0] * 12
    for line in rows:
        for x in range(0, w * bpp, bpp):
            r, g, b = line[x], line[x + 1], line[x + 2]
            mx, mn = max(r, g, b), min(r, g, b)
            if mn < 245:
                ink += 1
            d = mx - mn
            if d < 60:
                continue
            if mx == r:
                hue = ((g - b) / d) % 6
            elif mx == g:
                hue = (b - r) / d + 2
            else:
                hue = (r - g) / d + 4
            sectors[min(int(hue * 60 / 30), 11)] += 1
    frac = ink / (w * h)
    hues = sum(1 for n in sectors if n >= 40)
    ok = (w, h) == (want_w, want_h) and frac >= min_ink and hues >= min_hues
    print(f"{'ok' if ok else 'FAIL'}: {path}: {w}x{h} (expected {want_w}x{want_h}), "
          f"{100 * frac:.1f}% ink (>= {100 * min_ink:.1f}%), {hues} hue sectors (>= {min_hues})")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
