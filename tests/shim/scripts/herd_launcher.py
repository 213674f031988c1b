"""A Python launcher that starts one rank (/bin/true with LOCAL_RANK=0) while another process holds the
plan basis's preparation lock (tests/shim/basis_herd_test.cc): the spawn waits on the lock until a stop
signal ends the wait.

Usage: herd_launcher.py popen|posix_spawn [handler]
  popen        subprocess.Popen, which blocks every signal around its vfork (_posixsubprocess)
  posix_spawn  os.posix_spawn, signals as they are
  handler      first installs a SIGTERM handler that raises SystemExit(143), as Python launchers do
"""
import os
import signal
import subprocess
import sys


def stop(signum, frame):
    raise SystemExit(143)


def main():
    mode = sys.argv[1]
    if len(sys.argv) > 2 and sys.argv[2] == "handler":
        signal.signal(signal.SIGTERM, stop)
    env = dict(os.environ, LOCAL_RANK="0", LOCAL_WORLD_SIZE="2")
    if mode == "popen":
        subprocess.Popen(["/bin/true"], env=env).wait()
    else:
        pid = os.posix_spawn("/bin/true", ["/bin/true"], env)
        os.waitpid(pid, 0)
    # Reached when the signal did not stop the launcher.
    sys.exit(0)


if __name__ == "__main__":
    main()
