# Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
# A fork pool whose workers say where they landed (tests/vm/byorder.sh): fork_pool_pages.py N MB OUT.
# multiprocessing.Pool(N) with the fork start method; each worker, at its start, touches MB of fresh memory
# and appends one JSON line to OUT in helpers/report's words: pid, cpus (its affinity), policy (its memory
# policy, get_mempolicy) and pages ({"node": count} of the touched pages, asked of the kernel by
# move_pages). It cannot exec helpers/report: a fork worker that execs gives its rank back.
import ctypes
import json
import mmap
import multiprocessing as mp
import os
import sys

SYS_GET_MEMPOLICY = 239  # x86_64
SYS_MOVE_PAGES = 279
POLICIES = ["default", "preferred", "bind", "interleave", "local", "preferred_many"]


def cpu_list(cpus):
    """A Linux list ("0-3,8") of a set of CPUs."""
    out, run = [], []
    for c in sorted(cpus) + [None]:
        if run and (c is None or c != run[-1] + 1):
            out.append(str(run[0]) if len(run) == 1 else "%d-%d" % (run[0], run[-1]))
            run = []
        if c is not None:
            run.append(c)
    return ",".join(out)


def report(mb, out):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    mode = ctypes.c_int(-1)
    mask = (ctypes.c_ulong * 16)()
    policy = "?"
    if libc.syscall(SYS_GET_MEMPOLICY, ctypes.byref(mode), mask, ctypes.c_ulong(1024), None,
                    ctypes.c_ulong(0)) == 0:
        m = mode.value & 0xff  # without MPOL_F_STATIC_NODES and the other mode flags
        policy = POLICIES[m] if m < len(POLICIES) else str(m)
    size = mb << 20
    page = mmap.PAGESIZE
    mem = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE)
    mem.write(b"\1" * size)  # first touch: each page where the memory policy puts it
    base = ctypes.addressof(ctypes.c_char.from_buffer(mem))
    n = size // page
    addrs = (ctypes.c_void_p * n)(*[base + i * page for i in range(n)])
    status = (ctypes.c_int * n)()
    pages = {}
    if libc.syscall(SYS_MOVE_PAGES, 0, ctypes.c_ulong(n), addrs, None, status, 0) == 0:
        for s in status:  # nodes = NULL: move nothing, status[i] = page i's node (or -errno)
            pages[str(s)] = pages.get(str(s), 0) + 1
    line = {"pid": os.getpid(), "rank": "", "cpus": cpu_list(os.sched_getaffinity(0)), "policy": policy,
            "policy_nodes": "", "pages": pages}
    fd = os.open(out, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(fd, (json.dumps(line, separators=(",", ":")) + "\n").encode())
    os.close(fd)


if __name__ == "__main__":
    n, mb, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    pool = mp.get_context("fork").Pool(n, initializer=report, initargs=(mb, out))
    pool.close()  # no tasks: each worker reports in its initializer, then exits
    pool.join()
