# Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
# A fork Pool(2) whose workers start programs (tests/shim/fork_pool_test.cc): fork_pool_children.py OUT.
# Writes one JSON line per process to OUT, each CPU set in Linux list syntax ("1", "0-1"):
#   {"who": "main", "cpus", "fork_exec", "fork_exec_pid"}: the main process and a program it starts by fork
#     and exec (the CPUs the program reads from its /proc/self/status, and its pid);
#   {"who": "worker", "pid", "cpus", "fork_exec", "vfork_exec", "fork", "after"}: each worker of the first
#     pool, the programs it starts by fork+exec and by vfork+exec (as read by the program itself from its
#     /proc/self/status), a fork child of it that does not exec, and the worker's own CPUs after all three;
#   {"who": "second", "pid", "cpus"}: each worker of a second pool, started while the first one lives.
import json
import multiprocessing as mp
import os
import subprocess
import sys


def as_list(cpus):
    cpus, out, i = sorted(cpus), [], 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        out.append(str(cpus[i]) if i == j else "%d-%d" % (cpus[i], cpus[j]))
        i = j + 1
    return ",".join(out)


def own_cpus():
    return as_list(os.sched_getaffinity(0))


def program_cpus(**kw):
    """The CPUs of a real program (grep) as it reads them itself, and its pid. preexec_fn makes CPython
    fork, else it vforks (Python 3.10 and later)."""
    p = subprocess.Popen(["/bin/grep", "Cpus_allowed_list", "/proc/self/status"], stdout=subprocess.PIPE,
                         text=True, **kw)
    out = p.communicate()[0]
    if p.returncode != 0:
        raise RuntimeError("grep: status %d" % p.returncode)
    return out.split()[1], p.pid


def fork_cpus():
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.write(w, own_cpus().encode())
        os._exit(0)
    os.close(w)
    got = os.read(r, 256).decode()
    os.close(r)
    os.waitpid(pid, 0)
    return got


def write(out, line):
    fd = os.open(out, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(fd, (json.dumps(line) + "\n").encode())
    os.close(fd)


def first_worker(out, barrier):
    line = {"who": "worker", "pid": os.getpid(), "cpus": own_cpus()}
    line["fork_exec"] = program_cpus(preexec_fn=os.getpid)[0]
    line["vfork_exec"] = program_cpus()[0]
    line["fork"] = fork_cpus()
    line["after"] = own_cpus()
    write(out, line)
    globals()["barrier"] = barrier


def second_worker(out, barrier):
    write(out, {"who": "second", "pid": os.getpid(), "cpus": own_cpus()})
    globals()["barrier"] = barrier


def meet(_):
    barrier.wait(30)  # each of the two tasks in its own worker: both workers have started


if __name__ == "__main__":
    out = sys.argv[1]
    cpus, pid = program_cpus(preexec_fn=os.getpid)
    write(out, {"who": "main", "cpus": own_cpus(), "fork_exec": cpus, "fork_exec_pid": pid})
    ctx = mp.get_context("fork")
    b1, b2 = ctx.Barrier(2), ctx.Barrier(2)
    with ctx.Pool(2, initializer=first_worker, initargs=(out, b1)) as first:
        first.map(meet, range(2), chunksize=1)
        with ctx.Pool(2, initializer=second_worker, initargs=(out, b2)) as second:
            second.map(meet, range(2), chunksize=1)
