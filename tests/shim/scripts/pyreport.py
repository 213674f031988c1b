"""Python rank reporter for workers that never exec (torchrun --run_path / --start_method fork, multiprocessing
pools): appends one JSON line like build/helpers/report's ({"pid","ppid","rank","rank_var","cpus","cpus_status",
"python":true}) to a file with a single O_APPEND write.

As a script (torchrun --run_path runs it as __main__): pyreport.py OUT_FILE; the rank is LOCAL_RANK.
"""
import json
import os
import sys


def cpu_list(cpus):
    """Linux list syntax ("0-3,8") of a set of CPU numbers."""
    parts, run = [], []
    for c in sorted(cpus):
        if run and c == run[-1] + 1:
            run.append(c)
            continue
        if run:
            parts.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
        run = [c]
    if run:
        parts.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
    return ",".join(parts)


def status_field(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return line.split(":", 1)[1].strip()
    return ""


def report(out, rank=None, rank_var=None):
    """Appends this process's line to out; rank defaults to $LOCAL_RANK."""
    if rank is None:
        rank_var = "LOCAL_RANK" if "LOCAL_RANK" in os.environ else ""
        rank = os.environ.get("LOCAL_RANK", "")
    line = json.dumps({"pid": os.getpid(), "ppid": os.getppid(), "rank": str(rank), "rank_var": rank_var or "",
                       "cpus": cpu_list(os.sched_getaffinity(0)),
                       "cpus_status": status_field("Cpus_allowed_list"), "python": True}, separators=(",", ":"))
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o644)
    try:
        os.write(fd, (line + "\n").encode())
    finally:
        os.close(fd)


if __name__ == "__main__":
    report(sys.argv[1])
