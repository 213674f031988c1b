# zombie_launch.py posix_spawn|vfork PROGRAM [ARGS...] (tests/shim/order_counter_test.cc): starts PROGRAM,
# waits until it has ended without reaping it (a zombie, as a launcher that reaps late leaves it), then
# starts PROGRAM again, and reaps both. posix_spawn: subprocess.Popen(close_fds=False), which CPython runs by
# posix_spawn; vfork: the defaults (_posixsubprocess's vfork and execve). Prints "first PID STATE second PID"
# (STATE: the first's, from /proc/PID/stat, when the second started); exit 0 when both exited 0 and the first
# was a zombie.
import os
import subprocess
import sys


def state(pid):
    with open("/proc/%d/stat" % pid) as f:
        return f.read().rsplit(")", 1)[1].split()[0]


if __name__ == "__main__":
    mode, prog = sys.argv[1], sys.argv[2:]
    close_fds = mode != "posix_spawn"
    first = subprocess.Popen(prog, close_fds=close_fds)
    os.waitid(os.P_PID, first.pid, os.WEXITED | os.WNOWAIT)  # ended, not reaped
    was = state(first.pid)
    second = subprocess.Popen(prog, close_fds=close_fds)
    codes = (second.wait(), first.wait())
    print("first %d %s second %d" % (first.pid, was, second.pid))
    sys.exit(0 if codes == (0, 0) and was == "Z" else 1)
