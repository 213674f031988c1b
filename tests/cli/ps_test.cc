// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind ps`: real processes under the library (build/libnumabind.so preloaded into a sleeping program,
// never into this test), bound at start-up or by a launcher's exec; an unbound one, listed only with
// --all; another user's process, whose environment ps cannot read; processes that end while ps reads them.
// The map puts rank 1 on the first allowed CPU and rank 0 on the second, so that a listed CPU is the plan's.

#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>

#include "tests/cli/bound_child.h"
#include "tests/cli/cli_util.h"

using numabind::test::BuildDir;
using numabind::test::ReadAll;
using numabind::test::Result;
using numabind::test::Run;
using numabind::test::RunProgram;
using numabind::test::TempDir;
using numabind::test::TwoCpus;
using numabind::test::WriteAll;

TestSuite(ps, .fini = numabind::test::RemoveTempDirs);

namespace {

std::string Policy() { return "NUMABIND_POLICY=" + numabind::test::TwoCpuPolicy(); }

/// The library as $BUILD names it: scripts/run-tests.sh gives a path the loader accepts (a link without the
/// space a clone's path may have), which resolving it would undo.
std::string Library() {
  std::string lib = BuildDir() + "/libnumabind.so";
  cr_assert(access(lib.c_str(), R_OK) == 0, "no %s", lib.c_str());
  return lib;
}

/// Starts argv in the background with the test's environment less NUMABIND_* and LD_PRELOAD, plus `add`,
/// its output to /dev/null. Reap(pid) ends it.
pid_t Start(const std::vector<std::string>& argv, const std::vector<std::string>& add) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (strncmp(*e, "NUMABIND_", 9) != 0 && strncmp(*e, "LD_PRELOAD=", 11) != 0) env.emplace_back(*e);
  }
  bool shared = false;  // `add` may name the shared directory (ranks by order: ps reads their counter there)
  for (const std::string& a : add) shared = shared || a.rfind("NUMABIND_SHARED=", 0) == 0;
  if (!shared) env.push_back("NUMABIND_SHARED=" + TempDir());
  env.insert(env.end(), add.begin(), add.end());
  std::vector<char*> envp, args;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> copy = argv;
  for (auto& a : copy) args.push_back(a.data());
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  cr_assert_eq(rc, 0, "cannot start %s: %s", args[0], strerror(rc));
  return pid;
}

/// What ps names this test's process as a launcher: its first argument (Criterion's worker), as
/// base::CommandName gives a program that is no Python.
std::string SelfName() {
  std::string cmdline = ReadAll("/proc/self/cmdline");
  return cmdline.substr(0, cmdline.find('\0'));
}

/// A rank that binds itself at start-up: sleep, preloaded, with Open MPI's rank variable.
pid_t StartupRank(int rank, const std::vector<std::string>& more = {}) {
  std::vector<std::string> env = {"LD_PRELOAD=" + Library(), Policy(),
                                  "OMPI_COMM_WORLD_LOCAL_RANK=" + std::to_string(rank),
                                  "OMPI_COMM_WORLD_LOCAL_SIZE=2"};
  env.insert(env.end(), more.begin(), more.end());
  return Start({"/bin/sleep", "60"}, env);
}

/// ps's line of process `pid` ("" when it has none), its text output in *out.
std::string LineOf(const std::string& out, pid_t pid) {
  std::string p = std::to_string(pid) + " ";
  for (size_t at = 0; at < out.size();) {
    size_t end = out.find('\n', at);
    if (end == std::string::npos) end = out.size();
    if (out.compare(at, p.size(), p) == 0) return out.substr(at, end - at);
    at = end + 1;
  }
  return "";
}

/// The line's fields, split at runs of spaces.
std::vector<std::string> Fields(const std::string& line) {
  std::vector<std::string> f;
  std::istringstream in(line);
  for (std::string w; in >> w;) f.push_back(w);
  return f;
}

/// Runs `numabind ps ARGS` until pid's line appears (the process has started and bound), at most 10 s.
std::string WaitListed(pid_t pid, const std::vector<std::string>& args = {}) {
  std::vector<std::string> a = {"ps"};
  a.insert(a.end(), args.begin(), args.end());
  Result r;
  for (int i = 0; i < 200; ++i) {
    r = Run(a);
    cr_assert_eq(r.status, 0, "%s", r.err.c_str());
    std::string line = LineOf(r.out, pid);
    if (!line.empty()) return line;
    usleep(50 * 1000);
  }
  cr_assert_fail("pid %d never listed by numabind ps %s:\n%s", pid, args.empty() ? "" : args[0].c_str(),
                 r.out.c_str());
  return "";
}

/// Waits until `pid` runs `program` (its exec is done: what ps would read is there).
void WaitExec(pid_t pid, const std::string& program) {
  for (int i = 0; i < 200; ++i) {
    std::string cmd = ReadAll("/proc/" + std::to_string(pid) + "/cmdline");
    if (cmd.compare(0, program.size() + 1, program + std::string(1, '\0')) == 0) return;
    usleep(50 * 1000);
  }
  cr_assert_fail("pid %d never ran %s", pid, program.c_str());
}

/// Waits until `pid` runs on CPU `cpu` alone (the library's start-up has bound it), at most 10 s.
void WaitBound(pid_t pid, int cpu) {
  std::string want = "Cpus_allowed_list:\t" + std::to_string(cpu) + "\n";
  for (int i = 0; i < 200; ++i) {
    if (ReadAll("/proc/" + std::to_string(pid) + "/status").find(want) != std::string::npos) return;
    usleep(50 * 1000);
  }
  cr_assert_fail("pid %d never bound to cpu %d", pid, cpu);
}

/// StartupRank, once bound.
pid_t BoundRank(int rank, const std::vector<std::string>& more = {}) {
  pid_t pid = StartupRank(rank, more);
  WaitBound(pid, TwoCpus()[rank == 1 ? 0 : 1]);
  return pid;
}

}  // namespace

// A rank bound at start-up: its pid, user, rank and launcher, the plan's CPU and plan's word for memory.
Test(ps, lists_a_rank_bound_at_start_up, .timeout = 30) {
  pid_t pid = BoundRank(1, {"NUMABIND_MEMORY=bind"});
  std::vector<std::string> f = Fields(WaitListed(pid));
  Reap(pid);
  cr_assert_eq(f.size(), 9u, "pid user rank launcher cpus nodes memory local command");
  EXPECT_STREQ(f[1], "root");
  EXPECT_STREQ(f[2], "1");
  EXPECT_STREQ(f[3], SelfName());  // the process that started it, not a guess from OMPI_COMM_WORLD_LOCAL_RANK
  EXPECT_STREQ(f[4], std::to_string(TwoCpus()[0]));
  EXPECT_STREQ(f[6], "bind");
  EXPECT_STREQ(f[7], "100%");  // its own memory, all on its node 0 (bind:0)
  EXPECT_STREQ(f[8], "/bin/sleep");
}

// A rank its launcher bound at exec carries NUMABIND_BOUND with its proof: who bound it. Memory "local", the
// word plan uses (numa_maps says "default").
Test(ps, lists_a_rank_bound_by_its_launcher_as_json, .timeout = 30) {
  std::string dir = TempDir();
  pid_t pid = Start({"/bin/sh", "-c", "LOCAL_RANK=0 LOCAL_WORLD_SIZE=2 exec /bin/sleep 60"},
                    {"LD_PRELOAD=" + Library(), Policy()});
  WaitExec(pid, "/bin/sleep");
  Result r = Run({"ps", "--json"});
  Reap(pid);
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  WriteAll(dir + "/ps.json", r.out);
  // Valid JSON (Python's parser), and the rank's object as expected.
  std::string check =
      "import json, sys\n"
      "ps = json.load(open(sys.argv[1]))\n"
      "p = [p for p in ps if p['pid'] == int(sys.argv[2])]\n"
      "assert len(p) == 1, ps\n"
      "p = p[0]\n"
      "want = dict(rank=0, rank_var='LOCAL_RANK', how='variable', launcher=sys.argv[4], bound='numabind',\n"
      "            bound_by=p['pid'], cpus=sys.argv[3], memory='local', command='/bin/sleep', user='root', "
      "uid=0)\n"
      "for k, v in want.items(): assert p[k] == v, (k, p[k], v)\n"
      "assert p['cmdline'] == '/bin/sleep 60', p\n";
  Result c = RunProgram({"/usr/bin/python3", "-c", check, dir + "/ps.json", std::to_string(pid),
                         std::to_string(TwoCpus()[1]), SelfName()});
  cr_expect_eq(c.status, 0, "%s\n%s", c.err.c_str(), r.out.c_str());
}

// A process numabind did not bind (the library loaded, no rank variable) is left out, unless --all.
Test(ps, unbound_processes_only_with_all, .timeout = 30) {
  pid_t pid = Start({"/bin/sleep", "60"}, {"LD_PRELOAD=" + Library(), Policy()});
  WaitExec(pid, "/bin/sleep");
  Result r = Run({"ps"});
  std::string all = WaitListed(pid, {"--all"});
  Reap(pid);
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  EXPECT_STREQ(LineOf(r.out, pid), "");
  std::vector<std::string> f = Fields(all);
  cr_assert_eq(f.size(), 9u, "%s", all.c_str());
  EXPECT_STREQ(f[2] + " " + f[3], "- -");
}

// --user: a name or a number; another user's ranks are left out. One rank as root, one as nobody.
Test(ps, user_filter, .timeout = 30) {
  if (geteuid() != 0) cr_skip_test("needs root to start a process as nobody");
  pid_t mine = BoundRank(1);
  pid_t theirs = Start({"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/bin/sleep", "60"},
                       {"LD_PRELOAD=" + Library(), Policy(), "OMPI_COMM_WORLD_LOCAL_RANK=0"});
  WaitBound(theirs, TwoCpus()[1]);
  WaitListed(mine);
  WaitListed(theirs);
  Result root = Run({"ps", "--user", "root"});
  Result zero = Run({"ps", "--user=0"});
  Result nobody = Run({"ps", "--user", "65534"});
  Result none = Run({"ps", "--user", "no-such-user-numabind"});
  Reap(mine);
  Reap(theirs);
  cr_assert_eq(root.status, 0, "%s", root.err.c_str());
  cr_expect_neq(LineOf(root.out, mine), "");
  cr_expect_eq(LineOf(root.out, theirs), "", "%s", root.out.c_str());
  cr_expect(Fields(LineOf(zero.out, mine)) == Fields(LineOf(root.out, mine)), "%s", zero.out.c_str());
  cr_expect_eq(LineOf(zero.out, theirs), "");
  cr_expect_eq(LineOf(nobody.out, mine), "", "%s", nobody.out.c_str());
  cr_expect_eq(Fields(LineOf(nobody.out, theirs)).at(1), "nobody", "%s", nobody.out.c_str());
  cr_expect_eq(none.status, 2);
  cr_expect(none.err.find("--user no-such-user-numabind: no such user") != std::string::npos, "%s",
            none.err.c_str());
}

// Run by a user who cannot read a process's environment: its affinity says something bound it, the rank
// is unknown.
Test(ps, unreadable_environment_falls_back_to_affinity, .timeout = 30) {
  if (geteuid() != 0) cr_skip_test("needs root to run ps as nobody");
  pid_t pid = BoundRank(1);
  Result r = RunProgram(
      {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", numabind::test::Numabind(), "ps"});
  Reap(pid);
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  std::vector<std::string> f = Fields(LineOf(r.out, pid));
  cr_assert_eq(f.size(), 11u, "%s", r.out.c_str());
  EXPECT_STREQ(f[2] + " " + f[3], "? unknown");
  EXPECT_STREQ(f[6], std::to_string(TwoCpus()[0]));
  EXPECT_STREQ(f[8], "?");
}

// Each process is judged by the site file it read: its NUMABIND_CONFIG_FILE's, each file once; not by the
// first one ps happened to read for another process. One whose variables have an error is no rank: the
// library ran it unbound, whatever its site file says.
Test(ps, each_process_by_its_own_site_file, .timeout = 30) {
  std::string dir = TempDir();
  WriteAll(dir + "/on.conf", "NUMABIND_POLICY=" + numabind::test::TwoCpuPolicy() + "\n");
  WriteAll(dir + "/off.conf", "NUMABIND_DISABLE=1\n");
  auto start = [](const std::string& site, int rank, const char* more) {
    return Start({"/bin/sleep", "60"}, {"LD_PRELOAD=" + Library(), "NUMABIND_CONFIG_FILE=" + site,
                                        "OMPI_COMM_WORLD_LOCAL_RANK=" + std::to_string(rank),
                                        "OMPI_COMM_WORLD_LOCAL_SIZE=2", more});
  };
  pid_t on = start(dir + "/on.conf", 1, "NUMABIND_LOG=off");
  pid_t off = start(dir + "/off.conf", 1, "NUMABIND_LOG=off");
  pid_t bad = start(dir + "/on.conf", 0, "NUMABIND_MEMORY=fast");
  WaitBound(on, TwoCpus()[0]);
  WaitExec(off, "/bin/sleep");
  WaitExec(bad, "/bin/sleep");
  Result r = Run({"ps"});
  std::string bad_cpus = ReadAll("/proc/" + std::to_string(bad) + "/status");
  Reap(on);
  Reap(off);
  Reap(bad);
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  std::vector<std::string> f = Fields(LineOf(r.out, on));
  cr_assert_eq(f.size(), 9u, "%s", r.out.c_str());
  EXPECT_STREQ(f[2] + " " + f[3] + " " + f[4], "1 " + SelfName() + " " + std::to_string(TwoCpus()[0]));
  EXPECT_STREQ(LineOf(r.out, off), "");
  EXPECT_STREQ(LineOf(r.out, bad), "");
  cr_expect(bad_cpus.find("Cpus_allowed_list:\t" + std::to_string(TwoCpus()[1]) + "\n") == std::string::npos,
            "the library bound it after all:\n%s", bad_cpus.c_str());
}

// Run by root, ps never opens a site file another user's process names (root would read any file a user
// chose, and take that user's word for it). One of nobody's names a file only root can read, which its
// library could not read: it runs unbound, and ps must not say it is a rank. Another's bound it by a file
// ps does not read: its rank is unknown, by its CPUs.
Test(ps, root_never_reads_a_site_file_another_user_names, .timeout = 30) {
  if (geteuid() != 0) cr_skip_test("needs root to start a process as nobody");
  // nobody's rank loads the library and runs its planner helper from the build tree: a checkout under a
  // directory only root may enter (mktemp -d's 0700) cannot be that.
  std::string reach = "setpriv --reuid=65534 --regid=65534 --clear-groups test -r '" + Library() +
                      "' -a -x '" + numabind::test::Numabind() + "'";
  if (system(reach.c_str()) != 0) cr_skip_test("nobody cannot reach the build tree (%s)", Library().c_str());
  std::string dir = TempDir();
  cr_assert_eq(chmod(dir.c_str(), 0755), 0);
  WriteAll(dir + "/secret.conf", "NUMABIND_POLICY=" + numabind::test::TwoCpuPolicy() + "\n");
  cr_assert_eq(chmod((dir + "/secret.conf").c_str(), 0600), 0);
  WriteAll(dir + "/open.conf", "NUMABIND_POLICY=" + numabind::test::TwoCpuPolicy() + "\n");
  cr_assert_eq(chmod((dir + "/open.conf").c_str(), 0644), 0);
  auto as_nobody = [&dir](const char* file) {  // preloaded into sleep alone, not into setpriv (root)
    return Start({"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/env",
                  "LD_PRELOAD=" + Library(), "NUMABIND_CONFIG_FILE=" + dir + "/" + file,
                  "OMPI_COMM_WORLD_LOCAL_RANK=0", "OMPI_COMM_WORLD_LOCAL_SIZE=2", "/bin/sleep", "60"},
                 {});
  };
  pid_t secret = as_nobody("secret.conf");
  pid_t open = as_nobody("open.conf");
  WaitExec(secret, "/bin/sleep");
  WaitBound(open, TwoCpus()[1]);
  Result r = Run({"ps", "--all"});
  Reap(secret);
  Reap(open);
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  std::vector<std::string> f = Fields(LineOf(r.out, secret));
  cr_assert_eq(f.size(), 9u, "%s", r.out.c_str());
  EXPECT_STREQ(f[1] + " " + f[2] + " " + f[3], "nobody - -");
  std::string line = LineOf(r.out, open);
  f = Fields(line);
  cr_assert_geq(f.size(), 3u, "%s", r.out.c_str());
  EXPECT_STREQ(f[2], "?");
  cr_expect(line.find(" unknown (site file not read)  " + std::to_string(TwoCpus()[1]) + " ") !=
                std::string::npos,
            "%s", line.c_str());
}

// Processes start and end while ps reads them (ranks too, which ps reads furthest): it exits 0 every time
// and says nothing about them.
Test(ps, vanishing_processes_are_skipped, .timeout = 120) {
  // A preloaded shell that starts short-lived ranks (start-up bound) and plain processes, without end.
  pid_t churn = Start({"/bin/sh", "-c",
                       "while :; do OMPI_COMM_WORLD_LOCAL_RANK=1 /bin/true & /bin/true & "
                       "OMPI_COMM_WORLD_LOCAL_RANK=0 /bin/sleep 0.01 & wait; done"},
                      {"LD_PRELOAD=" + Library(), Policy()});
  for (int i = 0; i < 60; ++i) {
    const char* how = i % 3 == 0 ? "--json" : i % 3 == 1 ? "--all" : "--draw";
    Result r = Run({"ps", how});
    if (r.status != 0 || !r.err.empty()) {
      Reap(churn);
      cr_assert_fail("run %d (%s): exit %d\n%s", i, how, r.status, r.err.c_str());
    }
  }
  Reap(churn);
}

// What a process shows of itself (argv[0] by `exec -a`, a NUMABIND_BOUND naming its rank) reaches the
// terminal of whoever runs ps, root included, with every control character escaped: text, JSON and --draw.
Test(ps, escapes_what_processes_show, .timeout = 30) {
  using numabind::test::kEscapes;
  const std::string evil = kEscapes;
  pid_t pid =
      Start({"/bin/bash", "-c", "exec -a \"$0\" /bin/sleep 60", evil}, {"NUMABIND_BOUND=LOCAL_RANK=" + evil});
  WaitExec(pid, evil);
  Result text = Run({"ps"});
  Result json = Run({"ps", "--json"});
  Result draw = Run({"ps", "--draw"});
  Reap(pid);
  const std::string shown = "\\x1b[31mred\\x1b]0;pwned\\x07\\x7f\\u009b2J";
  for (const Result* r : {&text, &json, &draw}) {
    cr_assert_eq(r->status, 0, "%s", r->err.c_str());
    size_t at = numabind::test::FirstControl(r->out);
    cr_expect_eq(at, std::string::npos, "a control byte 0x%02x at %zu:\n%s",
                 at < r->out.size() ? static_cast<unsigned char>(r->out[at]) : 0, at, r->out.c_str());
  }
  std::vector<std::string> f = Fields(LineOf(text.out, pid));
  cr_assert_eq(f.size(), 9u, "pid user rank launcher cpus nodes memory local command:\n%s", text.out.c_str());
  EXPECT_STREQ(f[2], shown);  // the rank, from the environment
  EXPECT_STREQ(f[8], shown);  // the command
  cr_expect(draw.out.find("rank \\x1b[31mred") != std::string::npos, "%s", draw.out.c_str());
  // JSON escapes them its own way, and gives the command line back as it is.
  std::string dir = TempDir();
  WriteAll(dir + "/ps.json", json.out);
  std::string check =
      "import json, sys\n"
      "p = [p for p in json.load(open(sys.argv[1])) if p['pid'] == int(sys.argv[2])][0]\n"
      "evil = sys.argv[3]\n"
      "assert (p['rank'], p['command'], p['cmdline']) == (evil, evil, evil + ' 60'), p\n";
  Result c = RunProgram({"/usr/bin/python3", "-c", check, dir + "/ps.json", std::to_string(pid), evil});
  cr_expect_eq(c.status, 0, "%s\n%s", c.err.c_str(), json.out.c_str());
}

// A rank drawn on the machine, its rank and launcher in the legend.
Test(ps, draw, .timeout = 30) {
  pid_t pid = BoundRank(1);
  Result r = Run({"ps", "--draw"});
  Reap(pid);
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  std::string mark = "=" + std::to_string(pid) + " ";
  size_t at = r.out.find(mark);
  cr_assert_neq(at, std::string::npos, "%s", r.out.c_str());
  // Its legend entry, the first of its line or not: mark=pid, cpus, rank, memory policy, command.
  std::vector<std::string> f = Fields(r.out.substr(at, r.out.find('\n', at) - at));
  cr_assert_geq(f.size(), 7u, "%s", r.out.c_str());
  EXPECT_STREQ(f[1], std::to_string(TwoCpus()[0]));
  EXPECT_STREQ(f[2] + " " + f[3] + " " + f[4], "rank 1 (" + SelfName() + ")");
  EXPECT_STREQ(f[5] + " " + f[6], "local /bin/sleep");
}

// Ranks by order carry no rank variable: their tree's counter names them, fork children too (whose
// environment /proc shows as their parent's), with their launcher.
Test(ps, lists_ranks_by_order, .timeout = 60) {
  std::string shared = TempDir();
  pid_t loop = Start({"/bin/sh", "-c", "/bin/sleep 61 & /bin/sleep 61 & wait"},
                     {"LD_PRELOAD=" + Library(), Policy(), "NUMABIND_MATCH=/bin/sleep 61",
                      "NUMABIND_NRANKS=2", "NUMABIND_SHARED=" + shared});
  pid_t pool = Start({"/usr/bin/python3", "-c",
                      "import os, time\n"
                      "if os.fork() == 0: time.sleep(60)\n"
                      "else: os.wait()\n"},
                     {"LD_PRELOAD=" + Library(), Policy(), "NUMABIND_FORKS=ranks", "NUMABIND_NRANKS=1",
                      "NUMABIND_SHARED=" + shared});
  std::string out;
  std::vector<int> ranks;
  for (int i = 0; i < 100 && ranks.size() < 3; ++i) {
    Result r = Run({"ps", "--json"}, {"NUMABIND_SHARED=" + shared});
    out = r.out;
    ranks.clear();
    for (size_t at = 0; (at = out.find("\"how\":\"order\"", at)) != std::string::npos; ++at)
      ranks.push_back(1);
    usleep(100 * 1000);
  }
  Result text = Run({"ps"}, {"NUMABIND_SHARED=" + shared});
  kill(-loop, SIGKILL);
  Reap(loop);
  Reap(pool);
  cr_assert_eq(ranks.size(), 3u, "%s", out.c_str());
  // The loop's two sleeps, ranks 0 and 1 under /bin/sh; the fork child rank 0 under python3.
  for (const char* want : {"\"rank\":0,\"rank_var\":null,\"how\":\"order\",\"launcher\":\"/bin/sh\"",
                           "\"rank\":1,\"rank_var\":null,\"how\":\"order\",\"launcher\":\"/bin/sh\"",
                           "\"rank\":0,\"rank_var\":null,\"how\":\"order\",\"launcher\":\"python3 -c\""})
    cr_expect_neq(out.find(want), std::string::npos, "%s in\n%s", want, out.c_str());
  cr_expect_neq(text.out.find("  /bin/sh     "), std::string::npos, "%s", text.out.c_str());
}

// A command `numabind bind` ran: rank 0, how "bind", no rank variable.
Test(ps, lists_a_command_numabind_bind_ran, .timeout = 30) {
  std::string cpu = std::to_string(TwoCpus()[1]);
  pid_t pid =
      Start({numabind::test::Numabind(), "bind", "--policy", "cpus:" + cpu, "--", "/bin/sleep", "60"}, {});
  WaitBound(pid, TwoCpus()[1]);
  WaitExec(pid, "/bin/sleep");
  Result r = Run({"ps", "--json"});
  Reap(pid);
  std::string want =
      "\"pid\":" + std::to_string(pid) +
      ",\"user\":\"root\",\"uid\":0,\"bound\":\"numabind\",\"rank\":0,\"rank_var\":null,\"how\":\"bind\"";
  if (geteuid() != 0) want = "\"rank\":0,\"rank_var\":null,\"how\":\"bind\"";
  cr_expect_neq(r.out.find(want), std::string::npos, "%s in\n%s", want.c_str(), r.out.c_str());
}

// A process given its device in its environment (NUMABIND_BY_DEVICE): rank its device's index, how "device".
Test(ps, lists_a_rank_by_its_device, .timeout = 30) {
  char topology[PATH_MAX];  // the tests run from the checkout's root
  cr_assert_not_null(realpath("tests/data/topologies/2synth-2n1c1t-2gpu.xml", topology));
  pid_t pid =
      Start({"/bin/sleep", "60"}, {"LD_PRELOAD=" + Library(), "NUMABIND_POLICY=node", "NUMABIND_BY_DEVICE=1",
                                   "CUDA_VISIBLE_DEVICES=1", std::string("NUMABIND_TOPOLOGY=") + topology});
  WaitExec(pid, "/bin/sleep");
  WaitListed(pid);
  Result r = Run({"ps", "--json"});
  Reap(pid);
  std::string want = "\"rank\":1,\"rank_var\":\"CUDA_VISIBLE_DEVICES\",\"how\":\"device\"";
  cr_expect_neq(r.out.find(want), std::string::npos, "%s in\n%s", want.c_str(), r.out.c_str());
}

// An empty list says so in one line (a user with no process).
Test(ps, an_empty_list_says_so) {
  Result r = Run({"ps", "--user", "4242"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  EXPECT_STREQ(r.out, "no process on this machine that numabind bound (--all lists every process)\n");
}

Test(ps, usage) {
  Result help = Run({"ps", "--help"});
  cr_expect_eq(help.status, 0);
  cr_expect(help.out.find("Usage: numabind ps") != std::string::npos, "%s", help.out.c_str());
  Result via_help = Run({"help", "ps"});
  cr_expect_eq(via_help.out, help.out);
  for (std::vector<std::string> bad : {std::vector<std::string>{"ps", "--bogus"},
                                       {"ps", "1234"},
                                       {"ps", "--json", "--draw"},
                                       {"ps", "--user"}}) {
    Result r = Run(bad);
    cr_expect_eq(r.status, 2, "%s %s: %d %s", bad[0].c_str(), bad[1].c_str(), r.status, r.err.c_str());
    cr_expect_eq(numabind::test::CountLines(r.err), 1, "%s", r.err.c_str());
  }
}
