"""A Python launcher of one rank for the shim's preparation edge cases: edge_launch.py MODE PROGRAM [ARGS...]

MODE: plain     subprocess.run (CPython blocks every signal around its vfork), no signal handler
      handler   a SIGTERM handler like torchrun's (it writes "handler" to stdout and exits 7), then
                os.posix_spawn
      fill      os.posix_spawn with this environment padded (PAD=...) so that the rank's exec needs all but
                about kMargin bytes of the kernel's limit on arguments and environment
The rank gets LOCAL_RANK=0 and LOCAL_WORLD_SIZE=1. Exit status: the rank's, or 7 from the handler.
"""
import os
import resource
import signal
import subprocess
import sys

MARGIN = 1500  # what the library adds to the rank's environment (NUMABIND_BOUND=...) fits in it


def exec_limit():
    """The kernel's limit on an exec's strings and pointers (fs/exec.c, bprm_stack_limits)."""
    stack = resource.getrlimit(resource.RLIMIT_STACK)[0]
    limit = 6 << 20  # _STK_LIM / 4 * 3
    if stack != resource.RLIM_INFINITY:
        limit = min(limit, stack // 4)
    return max(limit, 32 * 4096)  # ARG_MAX


def exec_bytes(path, argv, env):
    """What an exec of path with argv and env takes from the limit: each string with its NUL (the file name
    too) and one pointer per argument and variable."""
    strings = [path] + argv + ["%s=%s" % kv for kv in env.items()]
    return sum(len(os.fsencode(s)) + 1 for s in strings) + 8 * (len(argv) + len(env))


def main():
    mode, argv = sys.argv[1], sys.argv[2:]
    env = dict(os.environ, LOCAL_RANK="0", LOCAL_WORLD_SIZE="1")
    if mode == "plain":
        return subprocess.run(argv, env=env).returncode
    if mode == "handler":

        def on_term(signum, frame):
            os.write(1, b"handler\n")
            os._exit(7)

        signal.signal(signal.SIGTERM, on_term)
    if mode == "fill":
        # One variable holds at most MAX_ARG_STRLEN (32 pages) bytes: the padding is spread over several.
        pads = ["PAD%d" % i for i in range((exec_limit() - exec_bytes(argv[0], argv, env)) // 100000 + 1)]
        env.update((name, "") for name in pads)
        room = exec_limit() - MARGIN - exec_bytes(argv[0], argv, env)
        for name in pads:
            env[name] = "x" * min(100000, room)
            room -= len(env[name])
        # The launcher's own environment is as large (the helper got it whole).
        os.environ.update((name, env[name]) for name in pads)
    pid = os.posix_spawn(argv[0], argv, env)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


if __name__ == "__main__":
    sys.exit(main())
