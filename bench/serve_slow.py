#!/usr/bin/env python3
"""Slow-client check of a search server: does a normal client still get answers while slow
clients hold connections, and how long does the server keep each slow connection?

    python3 bench/serve_slow.py BASE_URL [--queries FILE] [--slow-headers 64] [--no-readers 16]
        [--duration 60] [--baseline 5] [--large-hits 10000] [--timeout 10] [--json OUT]

BASE_URL is the search URL up to the query's value, as for bench/serve_load.sh
(http://127.0.0.1:8080/v1/web/search?hits=10&query=); queries come from FILE (one URL-encoded
query per line, default bench/serve-queries.txt) in turn.

1. Baseline: the normal client alone for --baseline seconds (keep-alive connection, one request
   at a time, each answer read whole; a new connection after any failure).
2. Then, for --duration seconds, with the normal client still running:
   - --slow-headers connections each send a GET request header one byte per second (a request
     that would take minutes to finish);
   - --no-readers connections each send a whole request for a large answer (the base URL with
     hits=--large-hits) and never read it, with a 4 KiB receive buffer so the server's writes
     block.
   Each second the check looks at every slow connection: a slow-header connection is over when
   the server answers (its status line is kept, e.g. 408) or closes or resets it; a no-reader
   connection is over when the kernel's TCP state for it (from /proc/net/tcp and tcp6) leaves
   ESTABLISHED, or the server's end of it does (seen only for a server on this host: a server
   that closes a connection with its answer unread stays in FIN_WAIT1 and the client's end stays
   ESTABLISHED), or the socket reports an error. Times are to the second. Linux only.
3. Prints, and writes with --json, one JSON object: the normal client's requests, failures (socket
   errors, timeouts and non-2xx, by kind), p50/p99/max latency in ms, for the baseline and under
   the slow clients; for each kind of slow connection how many connected, how many the server
   ended and after how many seconds (min, p50, max, and each), how many were still open at the
   end; the status lines the server sent to slow-header connections.

Python standard library only. Exits 1 if the normal client got no answer at all under the slow
clients, 2 on bad arguments or when the server does not answer the first request.
"""
import argparse
import errno
import http.client
import json
import math
import select
import socket
import sys
import threading
import time
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit

REPO = Path(__file__).resolve().parent.parent
TCP_STATES = {"01": "ESTABLISHED", "02": "SYN_SENT", "03": "SYN_RECV", "04": "FIN_WAIT1",
              "05": "FIN_WAIT2", "06": "TIME_WAIT", "07": "CLOSE", "08": "CLOSE_WAIT",
              "09": "LAST_ACK", "0A": "LISTEN", "0B": "CLOSING"}


def pct(values, p):
    """Nearest-rank percentile; None for no values."""
    if not values:
        return None
    v = sorted(values)
    return v[min(max(math.ceil(p * len(v)), 1), len(v)) - 1]


class Target:
    def __init__(self, base, large_hits):
        u = urlsplit(base)
        if u.scheme != "http" or not u.hostname:
            raise SystemExit(f"serve_slow: BASE_URL must be http://HOST[:PORT]/...: {base}")
        self.host, self.port = u.hostname, u.port or 80
        self.base_path = u.path + ("?" + u.query if u.query else "")
        if not base.endswith("="):
            raise SystemExit(f"serve_slow: BASE_URL must end with the query parameter's '=': {base}")
        params = [(k, v) for k, v in parse_qsl(u.query, keep_blank_values=True) if k != "hits"]
        last = params.pop() if params else ("query", "")
        params.append(("hits", str(large_hits)))
        self.large_prefix = u.path + "?" + urlencode(params) + "&" + urlencode([last])

    def host_header(self):
        return f"{self.host}:{self.port}"


class NormalClient(threading.Thread):
    """One request at a time in a loop; records (phase, latency or failure kind)."""

    def __init__(self, target, queries, timeout):
        super().__init__(daemon=True)
        self.target, self.queries, self.timeout = target, queries, timeout
        self.phase = "baseline"
        self.stop = threading.Event()
        self.results = {"baseline": [], "slow": []}

    def run(self):
        conn, i = None, 0
        while not self.stop.is_set():
            q = self.queries[i % len(self.queries)]
            i += 1
            phase = self.phase
            t0 = time.monotonic()
            try:
                if conn is None:
                    conn = http.client.HTTPConnection(self.target.host, self.target.port,
                                                      timeout=self.timeout)
                conn.request("GET", self.target.base_path + q)
                r = conn.getresponse()
                r.read()
                ms = (time.monotonic() - t0) * 1000
                if 200 <= r.status < 300:
                    self.results[phase].append(("ok", ms))
                else:
                    self.results[phase].append((f"status {r.status}", ms))
                if r.will_close:
                    conn.close()
                    conn = None
            except (socket.timeout, TimeoutError):
                self.results[phase].append(("timeout", None))
                conn = self._drop(conn)
            except (OSError, http.client.HTTPException) as e:
                self.results[phase].append((f"socket: {type(e).__name__}", None))
                conn = self._drop(conn)
                time.sleep(0.05)

    @staticmethod
    def _drop(conn):
        if conn is not None:
            conn.close()
        return None

    def summary(self, phase):
        rs = self.results[phase]
        ok = [ms for kind, ms in rs if kind == "ok"]
        failures = {}
        for kind, _ in rs:
            if kind != "ok":
                failures[kind] = failures.get(kind, 0) + 1
        r3 = lambda x: None if x is None else round(x, 3)
        return {"requests": len(rs), "ok": len(ok), "failures": sum(failures.values()),
                "failure_kinds": failures, "p50_ms": r3(pct(ok, 0.5)),
                "p99_ms": r3(pct(ok, 0.99)), "max_ms": r3(max(ok) if ok else None)}


def tcp_states(server_port):
    """({our local port: state}, {our port: the server's socket's state}) for this host's TCP
    sockets (IPv4 and IPv6) to and from `server_port`. The second is seen only when the server
    runs on this host (loopback): a server that closes a connection whose answer is unread keeps
    its socket in FIN_WAIT1 behind the unsent data, so the client's side stays ESTABLISHED."""
    ours, theirs = {}, {}
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(name) as f:
                next(f)
                for line in f:
                    parts = line.split()
                    local = int(parts[1].rsplit(":", 1)[1], 16)
                    remote = int(parts[2].rsplit(":", 1)[1], 16)
                    st = TCP_STATES.get(parts[3], parts[3])
                    if remote == server_port:
                        ours[local] = st
                    elif local == server_port and st != "LISTEN":
                        theirs[remote] = st
        except FileNotFoundError:
            continue
    return ours, theirs


class Slow:
    def __init__(self, kind, sock, payload, t0):
        self.kind, self.sock, self.payload, self.t0 = kind, sock, payload, t0
        self.sent = 0
        self.port = sock.getsockname()[1]
        self.ended = None      # seconds after connecting when the server ended it
        self.how = None        # how it ended
        self.status_line = None
        self.server_side_seen = False

    def end(self, how, now):
        if self.ended is None:
            self.ended = round(now - self.t0, 1)
            self.how = how


def connect(target, rcvbuf=None, timeout=5):
    s = socket.socket(socket.AF_INET6 if ":" in target.host else socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(timeout)
    s.connect((target.host, target.port))
    s.setblocking(False)
    return s


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("base_url")
    ap.add_argument("--queries", default=str(REPO / "bench" / "serve-queries.txt"))
    ap.add_argument("--slow-headers", type=int, default=64)
    ap.add_argument("--no-readers", type=int, default=16)
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--baseline", type=float, default=5.0)
    ap.add_argument("--large-hits", type=int, default=10000)
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--json")
    a = ap.parse_args()
    if a.slow_headers < 0 or a.no_readers < 0 or a.duration <= 0 or a.baseline < 0:
        ap.error("counts must be >= 0 and --duration > 0")
    if not sys.platform.startswith("linux"):
        sys.exit("serve_slow: Linux only (reads /proc/net/tcp)")
    target = Target(a.base_url, a.large_hits)
    try:
        queries = [l.strip() for l in open(a.queries, encoding="ascii") if l.strip()]
    except OSError as e:
        print(f"serve_slow: queries file: {e}", file=sys.stderr)
        sys.exit(2)
    if not queries:
        print(f"serve_slow: no queries in {a.queries}", file=sys.stderr)
        sys.exit(2)

    # The server must answer before anything is measured.
    try:
        c = http.client.HTTPConnection(target.host, target.port, timeout=60)
        c.request("GET", target.base_path + queries[0])
        r = c.getresponse()
        r.read()
        c.close()
    except (OSError, http.client.HTTPException) as e:
        print(f"serve_slow: {a.base_url}{queries[0]}: {e}", file=sys.stderr)
        sys.exit(2)
    if not 200 <= r.status < 300:
        print(f"serve_slow: {a.base_url}{queries[0]} answered {r.status}", file=sys.stderr)
        sys.exit(2)

    normal = NormalClient(target, queries, a.timeout)
    normal.start()
    time.sleep(a.baseline)
    normal.phase = "slow"
    print(f"serve_slow: baseline done; opening {a.slow_headers} slow-header and "
          f"{a.no_readers} no-reader connections for {a.duration:g} s", file=sys.stderr)

    slows, connect_failures = [], {"slow_header": 0, "no_reader": 0}
    for i in range(a.slow_headers):
        path = target.base_path + queries[i % len(queries)]
        payload = (f"GET {path} HTTP/1.1\r\nHost: {target.host_header()}\r\n"
                   f"User-Agent: serve_slow\r\nAccept: */*\r\n\r\n").encode()
        try:
            slows.append(Slow("slow_header", connect(target), payload, time.monotonic()))
        except OSError:
            connect_failures["slow_header"] += 1
    for i in range(a.no_readers):
        path = target.large_prefix + queries[i % len(queries)]
        payload = (f"GET {path} HTTP/1.1\r\nHost: {target.host_header()}\r\n"
                   f"Accept: */*\r\n\r\n").encode()
        try:
            s = Slow("no_reader", connect(target, rcvbuf=4096), payload, time.monotonic())
            s.sock.setblocking(True)
            s.sock.settimeout(5)
            s.sock.sendall(payload)
            s.sock.setblocking(False)
            s.sent = len(payload)
            slows.append(s)
        except OSError:
            connect_failures["no_reader"] += 1

    t_end = time.monotonic() + a.duration
    while True:
        now = time.monotonic()
        ours, theirs = tcp_states(target.port)
        for s in slows:
            if s.ended is not None:
                continue
            err = s.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if err:
                s.end(f"socket error {errno.errorcode.get(err, err)}", now)
                continue
            if s.kind == "slow_header":
                r, _, _ = select.select([s.sock], [], [], 0)
                if r:
                    try:
                        data = s.sock.recv(65536)
                    except OSError as e:
                        s.end(f"reset ({type(e).__name__})", now)
                        continue
                    if not data:
                        s.end("closed", now)
                        continue
                    if s.status_line is None:
                        s.status_line = data.split(b"\r\n", 1)[0].decode("latin-1")[:100]
                        s.end(f"answered: {s.status_line}", now)
                        continue
                if s.sent < len(s.payload):
                    try:
                        s.sock.send(s.payload[s.sent:s.sent + 1])
                        s.sent += 1
                    except BlockingIOError:
                        pass
                    except OSError as e:
                        s.end(f"send failed ({type(e).__name__})", now)
            else:
                st, server_st = ours.get(s.port), theirs.get(s.port)
                s.server_side_seen |= server_st is not None
                if st is None:
                    s.end("gone (reset)", now)
                elif st != "ESTABLISHED":
                    s.end(f"server closed (client side {st})", now)
                elif server_st is not None and server_st != "ESTABLISHED":
                    s.end(f"server closed (server side {server_st})", now)
                elif server_st is None and s.server_side_seen:
                    s.end("server socket gone", now)
        if now >= t_end:
            break
        time.sleep(max(0.0, min(1.0, t_end - now)))

    normal.stop.set()
    normal.join(a.timeout + 5)
    for s in slows:
        s.sock.close()

    def kind_summary(kind, n_wanted):
        ss = [s for s in slows if s.kind == kind]
        ended = [s.ended for s in ss if s.ended is not None]
        hows = {}
        for s in ss:
            if s.ended is not None:
                hows[s.how] = hows.get(s.how, 0) + 1
        return {"wanted": n_wanted, "connected": len(ss),
                "connect_failures": connect_failures[kind],
                "ended_by_server": len(ended), "still_open_at_end": len(ss) - len(ended),
                "held_s_min": min(ended) if ended else None,
                "held_s_p50": pct(ended, 0.5), "held_s_max": max(ended) if ended else None,
                "held_s": sorted(ended), "how": hows}

    report = {
        "base_url": a.base_url, "duration_s": a.duration, "baseline_s": a.baseline,
        "large_hits": a.large_hits,
        "normal_baseline": normal.summary("baseline"),
        "normal_under_slow": normal.summary("slow"),
        "slow_header": kind_summary("slow_header", a.slow_headers),
        "no_reader": kind_summary("no_reader", a.no_readers),
    }
    text = json.dumps(report)
    print(text)
    if a.json:
        with open(a.json, "a") as f:
            f.write(text + "\n")
    u = report["normal_under_slow"]
    print(f"serve_slow: normal client under slow clients: {u['ok']} ok of {u['requests']}, "
          f"p50 {u['p50_ms']} ms, p99 {u['p99_ms']} ms, failures {u['failure_kinds']}; "
          f"slow-header ended by server {report['slow_header']['ended_by_server']}"
          f"/{report['slow_header']['connected']}, no-reader ended by server "
          f"{report['no_reader']['ended_by_server']}/{report['no_reader']['connected']}",
          file=sys.stderr)
    sys.exit(0 if u["ok"] > 0 else 1)


if __name__ == "__main__":
    main()
