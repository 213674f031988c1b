#!/usr/bin/python3
# `make bench`'s row for `numabind report`: the time and peak memory to judge N rank lines of one host
# (BENCH_REPORT_LINES, default 100,000; the bar is 2 s and 200 MB), in text and --json.
# Usage: bench_report.py BUILD
import os
import subprocess
import sys
import tempfile
import time

build = sys.argv[1]
n = int(os.environ.get("BENCH_REPORT_LINES", "100000"))
line = ('{"time":"2026-12-03T10:00:00.000Z","host":"n1","pid":%d,"level":"info","event":"bound","rank":%d,'
        '"nranks":%d,"rank_var":"SLURM_LOCALID","command":"./app","cpus":"%d","nodes":"0","memory":"local",'
        '"device":null,"entry":"start-up","replaced":false,"policy":"exclusive"}\n')
with tempfile.TemporaryDirectory() as d:
    with open(os.path.join(d, "n1.log"), "w") as f:
        for k in range(n):
            f.write(line % (1000 + k, k, n, k % 4096))  # 4,096 CPUs: ranks 4,096 apart overlap
    print()
    print("numabind report: %d rank lines on one host (each overlapping others)" % n)
    for mode in ([], ["--json"]):
        t0 = time.monotonic()
        p = subprocess.Popen([os.path.join(build, "numabind"), "report"] + mode + [d],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(p.pid, 0)  # this child's own peak, not the largest child's so far
        seconds = time.monotonic() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        print("  %-8s %6.2f s  cpu %5.2f s  peak %4d MB  (exit %d)" % (
            " ".join(mode) or "text", seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss // 1024,
            p.returncode))
