"""Helpers shared by the Spark drivers (spark_build.py, spark_search.py).

Shipped to the executors with SparkContext.addPyFile, so the task functions
that use it run the same code on every node. The drivers call the unchanged
sieve binaries; this module only starts them and reports their failures
with the evidence (command, exit code, the end of stderr).
"""
import os
import shutil
import subprocess
import sys
import tempfile


class SieveTaskError(RuntimeError):
    """A sieve binary failed inside a Spark task (or on the driver)."""


def resolve_tool(name):
    """The absolute path of a sieve binary (a path, or a name on PATH). Every
    executor must see the same path (shared install or container image)."""
    found = shutil.which(name) if os.sep not in name else (name if os.access(name, os.X_OK) else None)
    if not found:
        raise SystemExit(f"{name}: not found or not executable (give the path with --sieve-index/--sieve-search)")
    return os.path.abspath(found)


# sieve's exit codes (docs/reliability.md, "Exit codes"): 0 done; 1 error; 2 usage;
# 3 done, part of the input lost at file level (named in stats.json);
# 4 done, nothing indexed.
PARTIAL_INPUT = 3
NOTHING_INDEXED = 4


def run(cmd, cwd=None, accept=(0,)):
    """Runs cmd (a list), returns its stdout as text; raises SieveTaskError
    naming the command, exit code and the last lines of stderr unless the
    exit code is in accept."""
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode not in accept:
        tail = p.stderr.decode("utf-8", "replace").strip().splitlines()[-20:]
        raise SieveTaskError(
            f"{' '.join(cmd)} exited with {p.returncode}:\n" + "\n".join(tail)
        )
    return p.stdout.decode("utf-8")


def write_atomic(path, text):
    """Writes text to path through a temporary file and a rename."""
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=d, prefix="." + os.path.basename(path) + ".")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def session(app, master=None):
    """A SparkSession; in local mode the Python workers use this interpreter
    (the one with pyspark installed) unless PYSPARK_PYTHON says otherwise."""
    if master and master.startswith("local"):
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName(app).config("spark.ui.showConsoleProgress", "false")
    if master:
        builder = builder.master(master)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    spark.sparkContext.addPyFile(os.path.abspath(__file__))
    return spark
