#!/usr/bin/python3
"""`make bench`, second part: what self-binding costs a rank at start-up, and what preparing the plan basis
costs with and without the shared basis (NUMABIND_SHARED), with and without device discovery.

Usage: bench_startup.py BUILD [RUNS]   (RUNS per variant, default 200; BENCH_STARTUP_RUNS overrides)
Starts /bin/true with os.posix_spawn and times spawn-to-waitpid; the variants are taken in turn, one start
each, so that a busy machine slows them alike. Preparation times are the library's own ("prepared ... in X
ms" at NUMABIND_LOG=debug), which time exactly the helper or the shared file.
"""
import os
import re
import statistics
import sys
import tempfile
import time

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
RUNS = int(os.environ.get("BENCH_STARTUP_RUNS", sys.argv[2] if len(sys.argv) > 2 else "200"))
LIB = os.path.join(BUILD, "libnumabind.so")
TRUE = "/bin/true"
SKIP = re.compile(r"^(LD_PRELOAD|NUMABIND_|SLURM_|LOCAL_RANK|LOCAL_WORLD_SIZE|OMPI_COMM_WORLD_|MPI_LOCAL|PMI_)")
BASE = {k: v for k, v in os.environ.items() if not SKIP.match(k)}
SHARED = tempfile.mkdtemp(prefix="numabind-bench-shared-")


def env(**extra):
    e = dict(BASE)
    e.update({k: str(v) for k, v in extra.items()})
    return e


RANK = dict(LD_PRELOAD=LIB, NUMABIND_POLICY="node", LOCAL_RANK=0, LOCAL_WORLD_SIZE=1, NUMABIND_SHARED=SHARED)
VARIANTS = [
    ("no preload", env()),
    ("shim, NUMABIND_POLICY=node, not a rank", env(LD_PRELOAD=LIB, NUMABIND_POLICY="node")),
    ("rank binds itself, shared basis, devices none", env(**RANK, NUMABIND_DEVICES="none")),
    ("rank binds itself, shared basis, devices auto", env(**RANK)),
    ("rank binds itself, NUMABIND_SHARED=off, devices none", env(**dict(RANK, NUMABIND_SHARED="off"),
                                                                 NUMABIND_DEVICES="none")),
    ("rank binds itself, NUMABIND_SHARED=off, devices auto", env(**dict(RANK, NUMABIND_SHARED="off"))),
    ("rank binds itself, shared basis, devices none, NUMABIND_GUARD=1",
     env(**RANK, NUMABIND_DEVICES="none", NUMABIND_GUARD=1)),
]


def start(e):
    t = time.perf_counter_ns()
    pid = os.posix_spawn(TRUE, [TRUE], e)
    _, status = os.waitpid(pid, 0)
    if status != 0:
        sys.exit(f"bench_startup: /bin/true exited {status}")
    return (time.perf_counter_ns() - t) / 1e6


def prepare_ms(e, runs):
    """The library's own timing of its preparation, from its debug log."""
    log = os.path.join(SHARED, "prepare.log")
    out = []
    for _ in range(runs):
        if os.path.exists(log):
            os.unlink(log)
        start(dict(e, NUMABIND_LOG="debug", NUMABIND_LOG_FILE=log))
        with open(log) as f:
            m = re.search(r"prepared .* in ([0-9.]+) ms (from the shared basis|by )", f.read())
        if not m:
            sys.exit("bench_startup: no 'prepared' line in the debug log")
        out.append(float(m.group(1)))
    return statistics.median(out), m.group(2).startswith("from")


def main():
    for _, e in VARIANTS:  # warm up: page cache, and the shared files exist before timing
        for _ in range(3):
            start(e)
    times = [[] for _ in VARIANTS]
    for _ in range(RUNS):
        for i, (_, e) in enumerate(VARIANTS):
            times[i].append(start(e))
    load = os.getloadavg()[0]
    print(f"\nstart-up of /bin/true, median ms of {RUNS} starts per variant (taken in turn; load {load:.1f})")
    base = statistics.median(times[1])
    for (name, _), t in zip(VARIANTS, times):
        med = statistics.median(t)
        print(f"  {name:<64} {med:7.3f}  {med - base:+7.3f} vs not a rank")
    print("\npreparation alone, median ms (the library's own timing, NUMABIND_LOG=debug)")
    for name, e in VARIANTS[2:]:
        ms, shared = prepare_ms(e, max(10, RUNS // 10))
        print(f"  {name:<64} {ms:7.2f}  ({'read from the shared file' if shared else 'numabind prepare-basis'})")


try:
    main()
finally:
    for f in os.listdir(SHARED):
        p = os.path.join(SHARED, f)
        if os.path.isdir(p):
            for g in os.listdir(p):
                os.unlink(os.path.join(p, g))
            os.rmdir(p)
        else:
            os.unlink(p)
    os.rmdir(SHARED)
