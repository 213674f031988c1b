"""Python launchers for the shim's tests: py_launch.py MODE REPORT OUT starts 2 ranks.

MODE: posix_spawn  subprocess.Popen(close_fds=False): CPython uses posix_spawn
      vfork        subprocess.Popen defaults (close_fds=True): _posixsubprocess's vfork + execve
      system       os.system, with LOCAL_RANK put in this process's environment first
      popen        os.popen, likewise (CPython's os.popen is subprocess.Popen(shell=True))
      pool         a multiprocessing spawn Pool of 2 workers, no rank variable: each worker reports itself with
                   rank = its spawn order (Process identity - 1)
      pool-restart a first Pool of 2 runs and ends (its workers report to OUT.first), then a second Pool of 2
                   starts: a launcher restarting its workers, which must get ranks 0 and 1 again
REPORT is build/helpers/report (not used by pool); every rank appends its line to OUT.
"""
import multiprocessing
import os
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyreport  # noqa: E402

NRANKS = 2


def pool_init(out):
    # identity counts every worker this launcher ever made: the restarted pool's are 3 and 4
    rank = (multiprocessing.current_process()._identity[0] - 1) % NRANKS
    pyreport.report(out, rank=rank, rank_var="order")


def run_pool(out):
    with multiprocessing.get_context("spawn").Pool(NRANKS, initializer=pool_init, initargs=(out,)) as pool:
        pool.map(pool_task, range(2 * NRANKS))
        pool.close()  # leaving the block terminates workers that may not have reported yet: wait for them
        pool.join()


def pool_task(x):
    return x


def main():
    mode, report, out = sys.argv[1:4]
    cmd = [report, "--out", out]
    if mode in ("posix_spawn", "vfork"):
        procs = []
        for r in range(NRANKS):
            env = dict(os.environ, LOCAL_RANK=str(r), LOCAL_WORLD_SIZE=str(NRANKS))
            procs.append(subprocess.Popen(cmd, env=env, close_fds=(mode == "vfork")))
        return max(p.wait() for p in procs)
    if mode in ("system", "popen"):
        status = 0
        for r in range(NRANKS):
            os.environ["LOCAL_RANK"], os.environ["LOCAL_WORLD_SIZE"] = str(r), str(NRANKS)
            if mode == "system":
                status |= os.waitstatus_to_exitcode(os.system(shlex.join(cmd)))
            else:
                with os.popen(shlex.join(cmd)) as f:
                    f.read()
        return status
    if mode == "pool":
        run_pool(out)
        return 0
    if mode == "pool-restart":
        run_pool(out + ".first")
        run_pool(out)
        return 0
    sys.exit(f"py_launch: unknown mode {mode}")


if __name__ == "__main__":
    sys.exit(main())
