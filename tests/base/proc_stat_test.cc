// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// /proc/PID/stat read once (base/proc_stat.h): the fields are counted after the last ')', since a command
// name may hold ") " and spaces; a process that is gone reads false.

#include "base/proc_stat.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

using numabind::base::ParseProcStat;
using numabind::base::ProcEnvironHas;
using numabind::base::ProcStat;
using numabind::base::ReadProcStat;

namespace {

bool Parse(const std::string& text, ProcStat* out) { return ParseProcStat(text.data(), text.size(), out); }

// Fields 4 (ppid) to 22 (starttime) of a sleeping process without a terminal (tpgid -1).
const char kTail[] = " S 4242 77 77 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654321 10000 200\n";

}  // namespace

Test(proc_stat, reads_state_parent_and_start_time) {
  ProcStat s;
  cr_assert(Parse("123 (sleep)" + std::string(kTail), &s));
  cr_expect_eq(s.state, 'S');
  cr_expect_eq(s.ppid, 4242);
  cr_expect_eq(s.start, 987654321u);
}

Test(proc_stat, a_command_name_with_parentheses_and_spaces) {
  ProcStat s;
  cr_assert(Parse("123 (a) b (c) ) d)" + std::string(kTail), &s));
  cr_expect_eq(s.ppid, 4242);
  cr_expect_eq(s.start, 987654321u);
}

Test(proc_stat, text_that_is_no_stat_line) {
  ProcStat s;
  cr_expect_not(Parse("", &s));
  cr_expect_not(Parse("123 (sleep", &s));
  cr_expect_not(Parse("123 (sleep) S", &s));
  cr_expect_not(Parse("123 (sleep) S x 77", &s));
  cr_expect_not(Parse("123 (sleep) S 4242 77 77 0 -1", &s), "cut before the 22nd field");
}

Test(proc_stat, this_process_and_a_process_that_is_gone) {
  ProcStat s;
  cr_assert(ReadProcStat(getpid(), &s));
  cr_expect_eq(s.ppid, getppid());
  cr_expect(s.start > 0);
  pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);
  cr_expect_not(ReadProcStat(child, &s));
  cr_expect_not(ReadProcStat(0, &s));
}

Test(proc_stat, an_environment_entry_whole_or_by_its_start) {
  // /proc/PID/environ is the environment a program started with: a program of its own, given one.
  pid_t child = fork();
  if (child == 0) {
    char* argv[] = {const_cast<char*>("sleep"), const_cast<char*>("10"), nullptr};
    char* envp[] = {const_cast<char*>("A=1"), const_cast<char*>("NUMABIND_TEST_ENTRY=a b=c"), nullptr};
    execve("/bin/sleep", argv, envp);
    _exit(127);
  }
  for (int i = 0; i < 100 && !ProcEnvironHas(child, "A=1", nullptr, true); ++i) usleep(10 * 1000);
  cr_expect(ProcEnvironHas(child, "NUMABIND_TEST_ENTRY=", "a b=c", true));
  cr_expect(ProcEnvironHas(child, "NUMABIND_TEST_ENTRY=", nullptr, false));
  cr_expect(ProcEnvironHas(child, "NUMABIND_TEST_ENTRY=a", nullptr, false));
  cr_expect_not(ProcEnvironHas(child, "NUMABIND_TEST_ENTRY=", "a b", true), "a start is not the whole entry");
  cr_expect_not(ProcEnvironHas(child, "NUMABIND_TEST_ENTRY=", "a b=cd", true));
  cr_expect_not(ProcEnvironHas(child, "TEST_ENTRY=", nullptr, false), "only at an entry's start");
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  cr_expect_not(ProcEnvironHas(child, "NUMABIND_TEST_ENTRY=", nullptr, false), "gone");
}
