"""A process that becomes a rank while it runs, after touching 64 MiB (issue 37), for tests/vm/move.sh.

Usage: late_pages.py OUT fork|device
  fork    the worker is an os.fork() child of this (configured) process; it touches the memory, then sets
          LOCAL_RANK=3 and LOCAL_WORLD_SIZE=4 in os.environ (torch's Callable workers);
  device  this process itself touches the memory, then sets CUDA_VISIBLE_DEVICES=0 (Ray's workers).
Either runs on CPUs 0-3 (node 0) until then, so its pages are node 0's. It appends one JSON line to OUT:
{"cpus": its Cpus_allowed_list after, "thread": a thread started before's, "pages": {node: pages} of the
64 MiB mapping from /proc/self/numa_maps}.
"""
import json
import mmap
import os
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "shim", "scripts"))
from late_worker import allowed, started_thread  # noqa: E402 (the path first)


def pages_of_big_mapping():
    best = {}
    with open("/proc/self/numa_maps") as f:
        for line in f:
            words = line.split()
            counts = {w[1:].split("=")[0]: int(w.split("=")[1]) for w in words if w[0] == "N" and "=" in w}
            if "file=" not in line and sum(counts.values()) > sum(best.values()):
                best = counts
    return best


def work(out, device):
    os.sched_setaffinity(0, {0, 1, 2, 3})
    t, tid, go = started_thread()
    mem = mmap.mmap(-1, 64 << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    for off in range(0, 64 << 20, 4096):
        mem[off] = 1
    if device:
        os.environ["CUDA_VISIBLE_DEVICES"] = "0"
    else:
        os.environ["LOCAL_RANK"] = "3"
        os.environ["LOCAL_WORLD_SIZE"] = "4"
    line = {"cpus": allowed(threading.get_native_id()), "thread": allowed(tid),
            "pages": pages_of_big_mapping()}
    with open(out, "a") as f:
        f.write(json.dumps(line, separators=(",", ":")) + "\n")
    go.set()
    t.join()


def main():
    out, how = sys.argv[1], sys.argv[2]
    if how == "device":
        work(out, True)
        return
    pid = os.fork()
    if pid == 0:
        work(out, False)
        os._exit(0)
    os.waitpid(pid, 0)


if __name__ == "__main__":
    main()
