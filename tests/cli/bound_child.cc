// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0

#include "tests/cli/bound_child.h"

#include <criterion/criterion.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

pid_t BoundChild(int cpu, int mode) {
  int ready[2];
  cr_assert_eq(pipe(ready), 0);
  pid_t parent = getpid();
  pid_t pid = fork();
  cr_assert(pid >= 0);
  if (pid == 0) {
    // Dies with the test, even one that fails before it reaps: a leftover child would hold the test's
    // output pipe open and hang whatever reads it.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(0);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    unsigned long mask = 1;
    int ok =
        sched_setaffinity(0, sizeof(set), &set) == 0 && syscall(SYS_set_mempolicy, mode, &mask, 64UL) == 0;
    char c = ok ? 'y' : 'n';
    (void)!write(ready[1], &c, 1);
    for (;;) pause();
  }
  close(ready[1]);
  char c = 0;
  cr_assert_eq(read(ready[0], &c, 1), 1);
  close(ready[0]);
  if (c != 'y') {
    Reap(pid);
    cr_assert_fail("cannot bind a child to CPU %d and memory policy %d on node 0 here", cpu, mode);
  }
  return pid;
}

void Reap(pid_t pid) {
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}
