"""A launcher whose forked workers become ranks late, as torch's Callable workers do: each worker (os.fork,
no exec) starts a thread, then sets LOCAL_RANK and LOCAL_WORLD_SIZE in os.environ (setenv), then starts a
second thread. It appends one JSON line per worker to OUT: {"rank", "cpus" (the main thread's), "before"
(the first thread's Cpus_allowed_list), "after" (the second's)}.

Usage: late_worker.py OUT NWORKERS
"""
import json
import os
import sys
import threading


def allowed(tid):
    with open(f"/proc/self/task/{tid}/status") as f:
        for line in f:
            if line.startswith("Cpus_allowed_list:"):
                return line.split(":", 1)[1].strip()
    return "?"


def started_thread():
    """A thread started now that waits until the returned event is set: (thread, its native id, event).
    device_worker.py and tests/vm/late_pages.py use it too."""
    go = threading.Event()
    ids = {}

    def run():
        ids["tid"] = threading.get_native_id()
        go.wait()

    t = threading.Thread(target=run)
    t.start()
    while "tid" not in ids:
        pass
    return t, ids["tid"], go


def worker(out, rank, n):
    go = threading.Event()
    ids = {}

    def run(key):
        ids[key] = threading.get_native_id()
        go.wait()

    before = threading.Thread(target=run, args=("before",))
    before.start()
    while "before" not in ids:
        pass
    os.environ["LOCAL_RANK"] = str(rank)
    os.environ["LOCAL_WORLD_SIZE"] = str(n)
    after = threading.Thread(target=run, args=("after",))
    after.start()
    while "after" not in ids:
        pass
    line = {"rank": str(rank), "cpus": allowed(threading.get_native_id()),
            "before": allowed(ids["before"]), "after": allowed(ids["after"])}
    go.set()
    before.join()
    after.join()
    fd = os.open(out, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(fd, (json.dumps(line) + "\n").encode())
    os.close(fd)


def main():
    out, n = sys.argv[1], int(sys.argv[2])
    pids = []
    for rank in range(n):
        pid = os.fork()
        if pid == 0:
            try:
                worker(out, rank, n)
            finally:
                os._exit(0)
        pids.append(pid)
    status = 0
    for pid in pids:
        _, s = os.waitpid(pid, 0)
        status |= s
    sys.exit(1 if status else 0)


if __name__ == "__main__":
    main()
