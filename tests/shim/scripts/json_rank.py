"""Starts one rank for the JSON log tests (tests/shim/json_log_test.cc) with a hostile name and a chosen
starting affinity:  json_rank.py MODE CPUS RANK DIR PROGRAM NAME_HEX [ARGS...]

The rank gets LOCAL_RANK=RANK and LOCAL_WORLD_SIZE=2 (this process has neither) and runs PROGRAM.
NAME_HEX is the name's bytes in hex (any bytes, none of them NUL).
MODE self  this process (NUMABIND_DISABLE=1: the shim is inert in it) narrows itself to CPUS ("-": leaves
           its affinity), then execs PROGRAM with argv[0] = NAME and without NUMABIND_DISABLE: the rank binds
           itself at start-up and names itself by argv[0].
     fork  this process is a preloaded launcher: it forks, the child narrows itself to CPUS and execs
           DIR/NAME, a link to PROGRAM ('/' in NAME makes directories), which the shim binds between fork
           and exec and names by that path. The launcher waits and exits as the rank did.
"""
import os
import sys


def main():
    mode, cpus, rank, base, program, name_hex = sys.argv[1:7]
    args = [os.fsencode(a) for a in sys.argv[7:]]
    name = bytes.fromhex(name_hex)
    env = {os.fsencode(k): os.fsencode(v) for k, v in os.environ.items() if k != "NUMABIND_DISABLE"}
    env[b"LOCAL_RANK"], env[b"LOCAL_WORLD_SIZE"] = os.fsencode(rank), b"2"
    if mode == "self":
        if cpus != "-":
            os.sched_setaffinity(0, {int(cpus)})
        os.execve(program, [name] + args, env)
    path = os.fsencode(base) + b"/" + name
    os.makedirs(os.path.dirname(path), exist_ok=True)
    os.symlink(os.fsencode(program), path)
    pid = os.fork()
    if pid == 0:
        if cpus != "-":
            os.sched_setaffinity(0, {int(cpus)})
        os.execve(path, [path] + args, env)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


if __name__ == "__main__":
    sys.exit(main())
