# order_soak.py BUILD [LAUNCHES [POOLS]]: the soak of ranks found by order (issue 38; `make soak`, and
# `make stress`). Root: it runs itself again in a private mount namespace, where the shared directory
# (NUMABIND_SHARED) is a 256 KiB tmpfs that a thread fills to the brim and empties again, at random, the
# whole time. Meanwhile, at once:
#   - LAUNCHES launches of 4 workers found by order (NUMABIND_MATCH), each its own tree: a `&` loop, xargs
#     under `sh -c` each, and posix_spawn (scripts/soak_launch.sh), in turn; in half of them a random
#     worker or holder (the `sh -c` that spawns it, the posix_spawn launcher) is killed with SIGKILL;
#   - POOLS fork process pools of 4 under NUMABIND_FORKS=ranks, 10 to a Python process
#     (scripts/soak_pool.py), whose workers are killed with SIGKILL at random (the pool breaks).
# Then it checks: no two live ranks of one tree with one number (by the lifetimes the workers report, a
# killed one's ending at its kill; left out, as documented: launches whose root said it has no counter,
# numbered by their launchers' children, and xargs launches whose `sh -c` was killed, which xargs leaves
# at once, its other shells each becoming a tree of its own); every worker on its rank's CPU (from its
# /proc/PID/status), or on all of them when it has none (or on a rank's, without a line, when its
# posix_spawn launcher was killed before it could write one); no process ended by a signal but the soak's
# SIGKILLs (and the executors' SIGTERMs); each launch without the counter said so in one line; and nothing
# left in the shared directory's numabind-UID but the plan basis once the last process has exited. Prints its
# figures; exit status 0 when every check held. NUMABIND_SOAK_SEED fixes the random choices;
# NUMABIND_SOAK_KEEP=1 keeps the logs (the shared directory itself goes with its mount namespace).
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MODES = ("loop", "xargs", "burst")


def allowed_cpus():
    return sorted(os.sched_getaffinity(0))


def cpu_list(cpus):
    """Linux list syntax, as Cpus_allowed_list prints it."""
    out, i = [], 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        out.append(str(cpus[i]) if i == j else "%d-%d" % (cpus[i], cpus[j]))
        i = j + 1
    return ",".join(out)


def proc_table():
    """pid -> (ppid, comm, cmdline) of every process."""
    table = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name) as f:
                stat = f.read()
            with open("/proc/%s/cmdline" % name, "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        table[int(name)] = (ppid, comm, cmd)
    return table


def descendants(root):
    table = proc_table()
    found, todo = [], [root]
    while todo:
        p = todo.pop()
        for pid, (ppid, comm, cmd) in table.items():
            if ppid == p:
                found.append((pid, comm, cmd))
                todo.append(pid)
    return found


def ranks_in(log):
    """pid -> rank from a text log's bound lines; pids that gave their rank back are left out."""
    ranks, gave_back = {}, set()
    for line in log.splitlines():
        m = re.match(r"numabind: bound rank (\d+) .* pid (\d+)", line)
        if m:
            ranks[int(m.group(2))] = int(m.group(1))
        m = re.match(r"numabind: gave back rank .* pid (\d+)", line)
        if m:
            gave_back.add(int(m.group(1)))
    for pid in gave_back:
        ranks.pop(pid, None)
    return ranks


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


class Soak:
    def __init__(self, build, launches, pools, work, shared):
        self.build, self.launches, self.pools = build, launches, pools
        self.work, self.shared = work, shared
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.failures = []
        self.kills = {}  # pid -> (monotonic ns just before the kill, comm)
        self.fig = {"fills": 0, "launch kills": 0, "pool kills": 0, "launches without the counter": 0,
                    "pool trees without the counter": 0, "workers": 0, "bound": 0, "unbound": 0,
                    "pool workers": 0, "broken pools": 0, "rank pairs checked": 0,
                    "split trees": 0}
        cpus = allowed_cpus()
        self.first, self.second, self.all = str(cpus[0]), str(cpus[1]), cpu_list(cpus)
        self.rng = random.Random(int(os.environ.get("NUMABIND_SOAK_SEED", "0")) or None)

    def fail(self, text):
        with self.lock:
            self.failures.append(text)

    def env(self, log, extra):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMABIND_", "LD_PRELOAD"))}
        policy = "cpus:%s|%s|%s|%s" % (self.second, self.first, self.second, self.first)
        env.update({"LD_PRELOAD": self.build + "/libnumabind.so", "NUMABIND_LOG": "info",
                    "NUMABIND_LOG_FILE": log, "NUMABIND_SHARED": self.shared, "NUMABIND_POLICY": policy,
                    "NUMABIND_NRANKS": "4"})
        env.update(extra)
        return env

    def for_rank(self, rank):
        return self.second if rank % 2 == 0 else self.first

    def kill(self, pid, comm, key):
        t = time.monotonic_ns()
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            return False
        with self.lock:
            self.kills[pid] = (t, comm)
            self.fig[key] += 1
        return True

    # --- the shared directory, full and empty in turn
    def filler(self):
        fill = self.shared + "/fill"
        chunk = b"\0" * 65536
        while not self.stop.is_set():
            fd = os.open(fill, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                while True:
                    os.write(fd, chunk)
            except OSError:
                pass
            os.close(fd)
            self.fig["fills"] += 1
            self.stop.wait(self.rng.uniform(0.02, 0.2))
            os.unlink(fill)
            self.stop.wait(self.rng.uniform(0.02, 0.2))

    # --- launches of ranks found by order
    def one_launch(self, k):
        mode = MODES[k % len(MODES)]
        d = "%s/L%d" % (self.work, k)
        os.makedirs(d + "/w")
        env = self.env(d + "/log", {"NUMABIND_MATCH": self.build + "/helpers/barrier *"})
        with open(d + "/output", "w") as out:
            p = subprocess.Popen(["bash", HERE + "/soak_launch.sh", mode, self.build, d], env=env, stdout=out,
                                 stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        # The workers live until the fifth entry, which the soak makes at a random time, after its kill.
        killed = []
        release = self.rng.uniform(0.01, 0.1)
        if self.rng.random() < 0.5:
            at = self.rng.uniform(0, release)
            time.sleep(at)
            release -= at
            targets = [(pid, comm) for pid, comm, cmd in descendants(p.pid)
                       if comm in ("barrier", "sh", "hostile")]
            if targets:
                pid, comm = self.rng.choice(targets)
                if self.kill(pid, comm, "launch kills"):
                    killed.append(pid)
                    # Whatever it was, the launch's other workers must not wait for its entry.
                    open("%s/w/killed-%d" % (d, pid), "w").close()
        time.sleep(release)
        open(d + "/w/release", "w").close()
        try:
            code = p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            self.fail("launch %d (%s) hung" % (k, mode))
            return
        if code != 0:
            self.fail("launch %d (%s): the launch script exited %d" % (k, mode, code))
        return mode, d, killed

    def launcher(self):
        for k in range(self.launches):
            if self.stop.is_set():
                return
            r = self.one_launch(k)
            if r is not None:
                self.results.append((k,) + r)

    def check_launch(self, k, mode, d, killed):
        log, output = read(d + "/log"), read(d + "/output")
        no_counter = len(re.findall(r"have no shared counter.*no room for its page in ", log))
        if "have no shared counter" in log and no_counter == 0:
            self.fail("launch %d: a line about the counter that is not about room:\n%s" % (k, log))
        # GNU xargs exits at once when a command of its is killed by a signal: the shells it started run on,
        # init's now, each the root of a tree of its own (docs/limits.md), which numbers from 0 again.
        split = mode == "xargs" and any(self.kills[pid][1] == "sh" for pid in killed)
        self.fig["split trees"] += split
        if no_counter > 1 and not split:
            self.fail("launch %d: %d lines about the counter, not one" % (k, no_counter))
        self.fig["launches without the counter"] += no_counter > 0
        # Exit statuses: 0, or 137 (128 + SIGKILL) for one the soak killed, or a failure hostile saw.
        for line in read(d + "/status").splitlines():
            who, status = line.split()
            if status == "0" or (status == "137" and killed) or (who == "burst" and status == "1" and killed):
                continue
            self.fail("launch %d (%s): status %s %s\n%s" % (k, mode, who, status, output))
        for m in re.finditer(r"burst: pid (\d+) (signal|exit) (\d+)", output):
            if not (m.group(2) == "signal" and m.group(3) == "9" and int(m.group(1)) in self.kills):
                self.fail("launch %d: a worker ended by %s %s" % (k, m.group(2), m.group(3)))
        if re.search(r"terminated by signal (?!9\b)|Bus error|Segmentation", output):
            self.fail("launch %d (%s):\n%s" % (k, mode, output))
        ranks = ranks_in(log)
        workers, starts = {}, {}
        for name in os.listdir(d + "/w"):
            if name.isdigit():
                entry = read("%s/w/%s" % (d, name)).split()
                workers[int(name)] = entry[0] if entry else ""
                if len(entry) > 1:
                    starts[int(name)] = int(entry[1])
        self.fig["workers"] += len(workers)
        # A posix_spawn launcher killed between its spawn and its line leaves its rank bound with no line.
        lineless = any(self.kills[pid][1] == "hostile" for pid in killed)
        for pid, cpus in workers.items():
            want = self.for_rank(ranks[pid]) if pid in ranks else self.all
            self.fig["bound" if pid in ranks else "unbound"] += 1
            if not cpus and pid in self.kills:
                continue  # killed as it wrote its entry
            if pid not in ranks and lineless and cpus in (self.first, self.second):
                continue
            if cpus != want:
                self.fail("launch %d (%s): worker %d (rank %s) on CPUs %s, not %s" %
                          (k, mode, pid, ranks.get(pid), cpus, want))
        if no_counter or split:
            return  # numbered by their launchers' children, or by two trees: may share a number
        lives = {}
        for line in read(d + "/times").splitlines():
            pid, start, end = map(int, line.split())
            lives[pid] = (start, end)
        for pid in workers:
            if pid in self.kills and pid not in lives and pid in starts:
                lives[pid] = (starts[pid], self.kills[pid][0])  # from its entry to its kill
        self.check_overlaps("launch %d (%s)" % (k, mode), ranks, lives)

    def check_overlaps(self, what, ranks, lives):
        """No two pids with one rank alive at once. lives: pid -> (start, end), each a part of its life."""
        spans = []
        for pid, rank in ranks.items():
            if pid in lives and lives[pid][0] <= lives[pid][1]:
                spans.append((rank, lives[pid][0], lives[pid][1], pid))
        for i, a in enumerate(spans):
            for b in spans[i + 1:]:
                if a[0] != b[0]:
                    continue
                self.fig["rank pairs checked"] += 1
                if a[1] < b[2] and b[1] < a[2]:
                    self.fail("%s: pids %d and %d both held rank %d at once" % (what, a[3], b[3], a[0]))

    # --- fork pools
    def pooler(self):
        batches = (self.pools + 9) // 10
        for b in range(batches):
            if self.stop.is_set():
                return
            n = min(10, self.pools - 10 * b)
            d = "%s/P%d" % (self.work, b)
            os.makedirs(d)
            with open(d + "/output", "w") as out:
                p = subprocess.Popen([sys.executable, HERE + "/soak_pool.py", str(n), d],
                                     env=self.env(d + "/log", {"NUMABIND_FORKS": "ranks"}), stdout=out,
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
            deadline = time.monotonic() + 120
            while p.poll() is None and time.monotonic() < deadline:
                time.sleep(self.rng.uniform(0.02, 0.12))
                if self.rng.random() < 0.5:
                    workers = [(pid, comm) for pid, comm, cmd in descendants(p.pid)
                               if "resource_tracker" not in cmd and "forkserver" not in cmd]
                    if workers:
                        self.kill(*self.rng.choice(workers), "pool kills")
            if p.poll() is None:
                p.kill()
                self.fail("pools %d hung" % b)
            elif p.returncode != 0:
                self.fail("pools %d exited %d:\n%s" % (b, p.returncode, read(d + "/output")))
            self.results.append(("pools", b, d))

    def check_pools(self, b, d):
        log = read(d + "/log")
        said = log.count("forks take no rank (NUMABIND_FORKS=ranks) and run unbound")
        if said > 1:
            self.fail("pools %d: %d lines about the counter, not one" % (b, said))
        self.fig["pool trees without the counter"] += said
        ranks = ranks_in(log)
        starts, cpus = {}, {}
        for line in read(d + "/workers").splitlines():
            pid, start, c = line.split()
            starts[int(pid)], cpus[int(pid)] = int(start), c
        self.fig["pool workers"] += len(starts)
        for pid, c in cpus.items():
            want = self.for_rank(ranks[pid]) if pid in ranks else self.all
            self.fig["bound" if pid in ranks else "unbound"] += 1
            if c != want:
                self.fail("pools %d: worker %d (rank %s) on CPUs %s, not %s" %
                          (b, pid, ranks.get(pid), c, want))
        ends = {}
        for line in read(d + "/exits").splitlines():
            _, pid, code = line.split()
            pid, code = int(pid), int(code)
            if code == -9 and pid in self.kills:
                ends[pid] = self.kills[pid][0]
            elif code not in (0, -15):
                self.fail("pools %d: worker %d ended with %d" % (b, pid, code))
        pools = [tuple(map(int, line.split()[1:])) for line in read(d + "/pools").splitlines()]
        self.fig["broken pools"] += sum(p[3] for p in pools)
        lives = {}
        for pid, start in starts.items():
            if pid in ends:
                lives[pid] = (start, ends[pid])
                continue
            # Alive until its pool's end (the pool it started in: the last to start before it).
            pool = max((p for p in pools if p[1] <= start), default=None, key=lambda p: p[1])
            if pool is not None:
                lives[pid] = (start, pool[2])
        self.check_overlaps("pools %d" % b, ranks, lives)

    def run(self):
        self.results = []
        t0 = time.monotonic()
        threads = [threading.Thread(target=f) for f in (self.filler, self.launcher, self.pooler)]
        for t in threads:
            t.start()
        threads[1].join()
        threads[2].join()
        self.stop.set()
        threads[0].join()
        if os.path.exists(self.shared + "/fill"):
            os.unlink(self.shared + "/fill")
        seconds = time.monotonic() - t0
        # Orphans (workers whose `sh -c` was killed) end once their launch's entries are all there.
        def ours():
            return [cmd for _, _, cmd in proc_table().values() if self.work in cmd]

        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and ours():
            time.sleep(0.1)
        left = ours()
        if left:
            self.fail("processes left: %s" % left[:3])
        for r in self.results:
            if r[0] == "pools":
                self.check_pools(r[1], r[2])
            else:
                self.check_launch(*r)
        own = "%s/numabind-%d" % (self.shared, os.geteuid())
        files = sorted(os.listdir(own)) if os.path.isdir(own) else []
        pages = [f for f in files if f.startswith("order-")]
        others = [f for f in files if not f.startswith(("order-", "basis-", "lock-"))]
        if pages or others:
            self.fail("left in %s: %s" % (own, " ".join(pages + others)))
        launches = sum(1 for r in self.results if r[0] != "pools")
        f = self.fig
        print("soak: %d launches of 4 by order (%d workers, %d without the counter, %d SIGKILLs, %d split by "
              "xargs's exit), %d fork pools of 4 (%d workers, %d without the counter, %d SIGKILLs, %d "
              "broken); "
              "%d workers on their rank's CPU, %d unbound on all; %d pairs of one rank checked for overlap; "
              "%d fills of the shared directory; %.0f s; left in numabind-UID: %s" %
              (launches, f["workers"], f["launches without the counter"], f["launch kills"], f["split trees"],
               self.pools, f["pool workers"], f["pool trees without the counter"], f["pool kills"],
               f["broken pools"], f["bound"], f["unbound"], f["rank pairs checked"], f["fills"], seconds,
               " ".join(files) or "nothing"))
        for text in self.failures[:20]:
            print("soak: FAILED: " + text)
        print("soak: %d failures" % len(self.failures))
        return 1 if self.failures else 0


def main():
    if len(sys.argv) < 2:
        print("usage: order_soak.py BUILD [LAUNCHES [POOLS]]", file=sys.stderr)
        return 2
    build = os.path.abspath(sys.argv[1])
    launches = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    pools = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    if os.geteuid() != 0:
        print("soak: needs root (unshare --mount, mount -t tmpfs)", file=sys.stderr)
        return 2
    if os.environ.get("NUMABIND_SOAK_INSIDE") != "1":
        env = dict(os.environ, NUMABIND_SOAK_INSIDE="1")
        return subprocess.call(["unshare", "--mount", "--propagation", "private", sys.executable,
                                os.path.abspath(__file__)] + sys.argv[1:], env=env)
    work = tempfile.mkdtemp(prefix="numabind-soak-")
    shared = work + "/shared"
    os.mkdir(shared)
    if re.search(r"[\s:]", build):  # LD_PRELOAD splits at spaces and colons (scripts/build-link.sh)
        os.symlink(build, work + "/build")
        build = work + "/build"
    subprocess.check_call(["mount", "-t", "tmpfs", "-o", "size=256k,mode=0755", "none", shared])
    try:
        return Soak(build, launches, pools, work, shared).run()
    finally:
        subprocess.call(["umount", shared])
        if os.environ.get("NUMABIND_SOAK_KEEP") == "1":
            print("soak: kept %s" % work)
        else:
            subprocess.call(["rm", "-rf", work])


if __name__ == "__main__":
    sys.exit(main())
