# soak_pool.py N DIR: N fork process pools of 4 workers (concurrent.futures.ProcessPoolExecutor) one after
# the other, for the order soak (order_soak.py), which runs it under NUMABIND_FORKS=ranks and kills its
# workers at random. (Not multiprocessing.Pool: a worker killed while it holds the task queue's lock, as an
# idle one may, leaves that lock taken and the Pool hung; an executor breaks instead.) Each worker appends
# "PID START CPUS" (CLOCK_MONOTONIC ns; Cpus_allowed_list) to DIR/workers when it starts; each pool appends
# "pool K START END BROKEN" (END: when its workers were last all alive, before its shutdown; BROKEN: 1 when a
# worker was killed under it) to DIR/pools, and "exit PID CODE" for each of its workers (-9: killed, -15:
# terminated by the executor) to DIR/exits.
import concurrent.futures
import multiprocessing as mp
import os
import random
import sys
import time


def own_cpus():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("Cpus_allowed_list:"):
                return line.split()[1]
    return "?"


def started(out):
    with open(out, "a") as f:
        f.write("%d %d %s\n" % (os.getpid(), time.monotonic_ns(), own_cpus()))


def work(_):
    time.sleep(0.005)
    return os.getpid()


if __name__ == "__main__":
    n, out = int(sys.argv[1]), sys.argv[2]
    ctx = mp.get_context("fork")
    for k in range(n):
        t0 = time.monotonic_ns()
        pool = concurrent.futures.ProcessPoolExecutor(4, mp_context=ctx, initializer=started,
                                                      initargs=(out + "/workers",))
        broken = 0
        try:
            list(pool.map(work, range(8), timeout=10))
            time.sleep(random.uniform(0, 0.05))
        except (concurrent.futures.process.BrokenProcessPool, concurrent.futures.TimeoutError):
            broken = 1
        t1 = time.monotonic_ns()
        procs = list((pool._processes or {}).values())
        pool.shutdown(wait=True, cancel_futures=True)
        for p in procs:
            p.join()
        with open(out + "/pools", "a") as f:
            f.write("pool %d %d %d %d\n" % (k, t0, t1, broken))
        with open(out + "/exits", "a") as f:
            f.writelines("exit %d %d\n" % (p.pid, p.exitcode) for p in procs)
