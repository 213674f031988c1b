// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind show`: its own binding, another process's (read from /proc), and the memory policies as the
// kernel writes them in numa_maps. Also called in-process, where get_mempolicy gives this process's policy.

#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "cli/cli.h"
#include "tests/cli/bound_child.h"
#include "tests/cli/cli_util.h"

using numabind::test::CountLines;
using numabind::test::Result;
using numabind::test::Run;
using numabind::test::StatusField;

namespace {

constexpr int kMpolPreferred = 1, kMpolBind = 2, kMpolInterleave = 3;

long SetMempolicy(int mode, unsigned long mask) {
  return syscall(SYS_set_mempolicy, mode, mode == 0 ? nullptr : &mask, mode == 0 ? 0UL : 64UL);
}

/// numabind::cli::ShowCommand in this process, output captured.
Result ShowHere(const std::vector<std::string>& args) {
  char* out_buf = nullptr;
  char* err_buf = nullptr;
  size_t out_len = 0, err_len = 0;
  FILE* out = open_memstream(&out_buf, &out_len);
  FILE* err = open_memstream(&err_buf, &err_len);
  Result r;
  r.status = numabind::cli::ShowCommand(args, out, err);
  fclose(out);
  fclose(err);
  r.out.assign(out_buf, out_len);
  r.err.assign(err_buf, err_len);
  free(out_buf);
  free(err_buf);
  return r;
}

}  // namespace

Test(show, itself_by_default) {
  Result r = Run({"show"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  cr_assert_str_empty(r.err.c_str());
  cr_assert_eq(CountLines(r.out), 2, "%s", r.out.c_str());
  cr_assert(r.out.rfind("pid", 0) == 0, "%s", r.out.c_str());
  std::string row = r.out.substr(r.out.find('\n') + 1);
  // The child inherits this process's CPUs and nodes, and has the default memory policy (MPOL_DEFAULT:
  // local).
  std::string expected_tail = "  " + numabind::test::Numabind() + " show\n";
  cr_assert(row.find("  " + StatusField("Cpus_allowed_list") + "  ") != std::string::npos, "%s", row.c_str());
  cr_assert(row.find("  local   0:") != std::string::npos, "its memory on node 0: %s", row.c_str());
  cr_assert(row.size() > expected_tail.size() &&
                row.compare(row.size() - expected_tail.size(), expected_tail.size(), expected_tail) == 0,
            "%s", row.c_str());
}

Test(show, itself_as_json) {
  Result r = Run({"show", "--json"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  std::string expected = "\",\"command\":\"" + numabind::test::Numabind() + " show --json\",\"cpus\":\"" +
                         StatusField("Cpus_allowed_list") + "\",\"nodes\":\"" +
                         StatusField("Mems_allowed_list") + "\",\"memory\":\"local\",\"anon_kb_by_node\":{\"";
  cr_assert(r.out.rfind("[\n  {\"pid\":", 0) == 0, "%s", r.out.c_str());
  cr_assert(r.out.find(expected.substr(1)) != std::string::npos, "%s\nexpected ...%s", r.out.c_str(),
            expected.c_str());
}

Test(show, another_process) {
  pid_t child = BoundChild(0, kMpolBind);
  Result r = Run({"show", "--json", std::to_string(child)});
  Reap(child);
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  // The child is a fork of this test: same command line.
  std::string cmdline = numabind::test::ReadAll("/proc/self/cmdline");
  std::string expected =
      "  {\"pid\":" + std::to_string(child) + ",\"command\":\"" + cmdline.substr(0, cmdline.find('\0'));
  cr_assert(r.out.find(expected) != std::string::npos, "%s\nexpected %s", r.out.c_str(), expected.c_str());
  cr_assert(r.out.find("\"cpus\":\"0\",\"nodes\":\"" + StatusField("Mems_allowed_list") +
                       "\",\"memory\":\"bind:0\"") != std::string::npos,
            "%s", r.out.c_str());
}

Test(show, other_policies_from_numa_maps) {
  pid_t a = BoundChild(0, kMpolInterleave);
  pid_t b = BoundChild(0, kMpolPreferred);
  Result r = Run({"show", std::to_string(a), std::to_string(b)});
  Reap(a);
  Reap(b);
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  cr_assert_eq(CountLines(r.out), 3, "%s", r.out.c_str());
  cr_assert(r.out.find("  interleave:0  ") != std::string::npos, "%s", r.out.c_str());
  cr_assert(r.out.find("  preferred:0  ") != std::string::npos, "%s", r.out.c_str());
}

Test(show, own_policy_from_get_mempolicy) {
  Result r = ShowHere({"--json"});
  cr_assert_eq(r.status, 0, "%s", r.err.c_str());
  cr_assert(r.out.find("\"memory\":\"local\"") != std::string::npos, "%s", r.out.c_str());
  cr_assert(r.out.find("{\"pid\":" + std::to_string(getpid()) + ",") != std::string::npos, "%s",
            r.out.c_str());
  struct {
    int mode;
    const char* text;
  } cases[] = {{kMpolBind, "bind:0"}, {kMpolInterleave, "interleave:0"}, {kMpolPreferred, "preferred:0"}};
  for (const auto& c : cases) {
    cr_assert_eq(SetMempolicy(c.mode, 1), 0, "set_mempolicy: %s", strerror(errno));
    r = ShowHere({"--json"});
    cr_assert(r.out.find(std::string("\"memory\":\"") + c.text + "\"") != std::string::npos, "%s: %s", c.text,
              r.out.c_str());
  }
  cr_assert_eq(SetMempolicy(4 /* MPOL_LOCAL */, 0), 0);
  r = ShowHere({"--json"});
  cr_assert(r.out.find("\"memory\":\"local\"") != std::string::npos, "%s", r.out.c_str());
  SetMempolicy(0, 0);
}

// Another process's command line (argv[0] by `exec -a`: any user can choose it) reaches the terminal of
// whoever runs show, root included, with every control character escaped: text, JSON and --draw.
Test(show, escapes_command_lines) {
  const std::string evil = numabind::test::kEscapes;
  char* argv[] = {const_cast<char*>(evil.c_str()), const_cast<char*>("60"), nullptr};
  pid_t pid = -1;
  cr_assert_eq(posix_spawn(&pid, "/bin/sleep", nullptr, nullptr, argv, environ), 0);
  const std::string cmdline = evil + std::string(1, '\0') + "60" + std::string(1, '\0');
  for (int i = 0; i < 500 && numabind::test::ReadAll("/proc/" + std::to_string(pid) + "/cmdline") != cmdline;
       ++i)
    usleep(10 * 1000);  // until the exec is done
  Result text = Run({"show", std::to_string(pid)});
  Result json = Run({"show", "--json", std::to_string(pid)});
  Result draw = Run({"show", "--draw", std::to_string(pid)});
  Reap(pid);
  for (const Result* r : {&text, &json, &draw}) {
    cr_assert_eq(r->status, 0, "%s", r->err.c_str());
    size_t at = numabind::test::FirstControl(r->out);
    cr_expect_eq(at, std::string::npos, "a control byte 0x%02x at %zu:\n%s",
                 at < r->out.size() ? static_cast<unsigned char>(r->out[at]) : 0, at, r->out.c_str());
  }
  const std::string shown = "\\x1b[31mred\\x1b]0;pwned\\x07\\x7f\\u009b2J";
  cr_expect(text.out.find("  " + shown + " 60\n") != std::string::npos, "%s", text.out.c_str());
  cr_expect(draw.out.find(shown.substr(0, 20)) != std::string::npos, "%s", draw.out.c_str());
  const std::string as_json = "\"command\":\"\\u001b[31mred\\u001b]0;pwned\\u0007\\u007f\\u009b2J 60\"";
  cr_expect(json.out.find(as_json) != std::string::npos, "%s", json.out.c_str());
}

Test(show, missing_process) {
  Result r = Run({"show", "999999999"});
  cr_assert_eq(r.status, 1);
  EXPECT_STREQ(r.err.c_str(), "numabind show: 999999999: no such process\n");
  cr_assert_str_empty(r.out.c_str());
  // The processes that exist are still shown.
  r = Run({"show", "999999999", "1"});
  cr_assert_eq(r.status, 1);
  cr_assert_eq(CountLines(r.out), 2, "%s", r.out.c_str());
}

Test(show, bad_usage) {
  Result r = Run({"show", "abc"});
  cr_assert_eq(r.status, 2);
  EXPECT_STREQ(r.err.c_str(), "numabind show: abc: not a process id\n");
  r = Run({"show", "-5"});
  cr_assert_eq(r.status, 2);
  r = Run({"show", "--pid", "5"});
  cr_assert_eq(r.status, 2);
  EXPECT_STREQ(r.err.c_str(),
               "numabind show: unknown option --pid (numabind show --help lists the options)\n");
}

// Where a live process's memory and threads are (issue 37, issue 35): its own resident memory per node,
// and with --threads one line per thread, the one with a CPU outside the process's marked. A Python process
// on CPU 0 with 32 MiB touched and a second thread it left on two CPUs.
Test(show, memory_per_node_and_threads_outside) {
  std::vector<int> cpus = numabind::test::TwoCpus();
  std::string script =
      "import os, sys, threading, time\n"
      "x = bytearray(32 << 20)\n"
      "t = threading.Thread(target=time.sleep, args=(30,), daemon=True); t.start()\n"
      "os.sched_setaffinity(0, {" +
      std::to_string(cpus[0]) +
      "})\n"
      "print(os.getpid(), flush=True)\n"
      "time.sleep(30)\n";
  std::string cmd = "exec /usr/bin/python3 -c '" + script + "'";
  FILE* p = popen(cmd.c_str(), "r");
  cr_assert_not_null(p);
  long pid = 0;
  cr_assert_eq(fscanf(p, "%ld", &pid), 1);
  Result text = Run({"show", "--threads", std::to_string(pid)});
  Result json = Run({"show", "--json", "--threads", std::to_string(pid)});
  kill(static_cast<pid_t>(pid), SIGKILL);
  pclose(p);
  cr_assert_eq(text.status, 0, "%s", text.err.c_str());
  cr_expect(text.out.find("resident per node") != std::string::npos, "%s", text.out.c_str());
  size_t at = json.out.find("\"anon_kb_by_node\":{\"");
  cr_assert_neq(at, std::string::npos, "%s", json.out.c_str());
  long kb = 0;
  for (size_t q = json.out.find(':', json.out.find(':', at) + 1) + 1; isdigit(json.out[q]); ++q)
    kb = kb * 10 + (json.out[q] - '0');
  cr_expect_geq(kb, 32 * 1024, "%s", json.out.c_str());
  cr_expect_eq(CountLines(text.out.substr(text.out.find("threads of"))), 4, "heading, columns, 2 threads: %s",
               text.out.c_str());
  cr_expect(text.out.find("\n! ") != std::string::npos, "the widened thread is marked: %s", text.out.c_str());
  cr_expect(json.out.find("\"outside\":true") != std::string::npos, "%s", json.out.c_str());
  cr_expect(json.out.find("\"outside\":false") != std::string::npos, "%s", json.out.c_str());
}
