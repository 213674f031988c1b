# fork_children.py N OUT (tests/shim/order_counter_test.cc): forks N children with os.fork, one after the
# other; each appends "PID CPUS" (its Cpus_allowed_list in /proc/self/status) to OUT and exits 0. Exit status
# 0 when every child exited 0; else it prints each child's wait status.
import os
import sys


def own_cpus():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("Cpus_allowed_list:"):
                return line.split()[1]
    return "?"


if __name__ == "__main__":
    n, out = int(sys.argv[1]), sys.argv[2]
    pids = []
    for _ in range(n):
        pid = os.fork()
        if pid == 0:
            with open(out, "a") as f:
                f.write("%d %s\n" % (os.getpid(), own_cpus()))
            os._exit(0)
        pids.append(pid)
    statuses = [os.waitpid(pid, 0)[1] for pid in pids]
    if any(statuses):
        print("fork_children: wait statuses %s" % statuses)
        sys.exit(1)
