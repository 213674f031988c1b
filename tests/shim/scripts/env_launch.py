"""A launch script that names its ranks in its own environment: for each of 2 ranks it sets LOCAL_RANK
and LOCAL_WORLD_SIZE in os.environ, then starts argv[1:] with subprocess.Popen (the children inherit
them). It prints its own pid and CPUs at the end: it is no rank, and must stay on every CPU it had."""
import os
import subprocess
import sys

procs = []
for rank in range(2):
    os.environ["LOCAL_RANK"] = str(rank)
    os.environ["LOCAL_WORLD_SIZE"] = "2"
    procs.append(subprocess.Popen(sys.argv[1:]))
status = max(p.wait() for p in procs)
cpus = sorted(os.sched_getaffinity(0))
print("launcher pid %d cpus %s" % (os.getpid(), ",".join(map(str, cpus))), flush=True)
sys.exit(status)
