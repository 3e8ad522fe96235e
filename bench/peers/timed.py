#!/usr/bin/env python3
"""Run a command and report its wall time and peak RSS as one JSON line.

    timed.py OUT.json -- CMD [ARGS...]

Uses /usr/bin/time -v when it exists (peak RSS of the largest process, as GNU time reports it);
otherwise falls back to os.wait4 resource usage of the child (ru_maxrss, largest descendant
that was waited for). The command's own stdout/stderr pass through. Exit status is the command's.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time


def main():
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        sys.exit(__doc__)
    out, cmd = sys.argv[1], sys.argv[3:]
    gnu_time = "/usr/bin/time"
    rec = {"cmd": cmd}
    if os.access(gnu_time, os.X_OK):
        with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
            t0 = time.monotonic()
            rc = subprocess.call([gnu_time, "-v", "-o", tf.name] + cmd)
            rec["wall_s"] = time.monotonic() - t0
            text = tf.read()
        m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
        rec["peak_rss_kb"] = int(m.group(1)) if m else None
        for key, pat in [("user_s", r"User time \(seconds\): ([\d.]+)"), ("sys_s", r"System time \(seconds\): ([\d.]+)")]:
            m = re.search(pat, text)
            rec[key] = float(m.group(1)) if m else None
        rec["timer"] = "/usr/bin/time -v"
    else:
        t0 = time.monotonic()
        p = subprocess.Popen(cmd)
        _, status, ru = os.wait4(p.pid, 0)
        rec["wall_s"] = time.monotonic() - t0
        rc = os.waitstatus_to_exitcode(status)
        rec["peak_rss_kb"] = ru.ru_maxrss
        rec["user_s"], rec["sys_s"] = ru.ru_utime, ru.ru_stime
        rec["timer"] = "os.wait4"
    rec["exit"] = rc
    with open(out, "w") as f:
        json.dump(rec, f)
        f.write("\n")
    sys.exit(rc)


if __name__ == "__main__":
    main()
