# Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
# A Python pool of N workers (tests/shim/fork_pool_test.cc): fork_pool.py METHOD pool|executor N OUT.
# Each worker appends "PID CPUS" (its affinity, comma separated) to OUT when it starts.
import concurrent.futures
import multiprocessing as mp
import os
import subprocess
import sys
import time


def started(out):
    cpus = ",".join(str(c) for c in sorted(os.sched_getaffinity(0)))
    with open(out, "a") as f:
        f.write("%d %s\n" % (os.getpid(), cpus))


def work(_):
    time.sleep(0.3)  # every worker gets a task: N tasks at once
    return os.getpid()


if __name__ == "__main__":
    method, kind, n, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    # A fork child that execs, as CPython starts its resource tracker and forkserver when it cannot use
    # vfork (a preexec_fn makes _posixsubprocess fork), and that lives on as they do: it must take no rank.
    helper = subprocess.Popen(["/bin/sleep", "60"], preexec_fn=os.getpid)
    ctx = mp.get_context(method)
    if kind == "pool":
        with ctx.Pool(n, initializer=started, initargs=(out,)) as p:
            p.map(work, range(n), chunksize=1)
    else:
        with concurrent.futures.ProcessPoolExecutor(n, mp_context=ctx, initializer=started,
                                                    initargs=(out,)) as e:
            list(e.map(work, range(n)))
    helper.kill()
    helper.wait()
