// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// fault_count N fork|spawn|system|popen [NAME=VALUE...]: starts /bin/true N times, one at a time (fork then
// execve, posix_spawn, or system or popen of "exec /bin/true", whose shell is the child), each child with
// exactly the NAME=VALUE entries as its environment (none given: this process's own; system and popen take
// it from `environ`, which points at them for the call), and prints "child C parent P": the mean minor page
// faults of a child (its whole life, before and after its exec, from wait4 or from the children's total) and
// of this process per start. Page faults, unlike time, do not depend on the machine's load: the tests of
// the library's layout, of its fork wrapper and of a launcher's rank environment compare them.

#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: fault_count N fork|spawn|system|popen [NAME=VALUE...]\n");
    return 2;
  }
  long n = atol(argv[1]);
  int use_fork = strcmp(argv[2], "fork") == 0;
  int use_system = strcmp(argv[2], "system") == 0, use_popen = strcmp(argv[2], "popen") == 0;
  char** env = argc > 3 ? argv + 3 : environ;  // argv is NULL-terminated: so is env
  char* args[] = {"/bin/true", NULL};
  struct rusage self0, self1, child, children0;
  long child_faults = 0;
  getrusage(RUSAGE_SELF, &self0);
  getrusage(RUSAGE_CHILDREN, &children0);
  for (long i = 0; i < n; i++) {
    pid_t pid = -1;
    if (use_system || use_popen) {
      char** saved = environ;
      environ = env;
      int status = -1;
      if (use_system) {
        status = system("exec /bin/true");
      } else {
        FILE* f = popen("exec /bin/true", "r");
        status = f != NULL ? pclose(f) : -1;
      }
      environ = saved;
      if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "fault_count: start %ld failed\n", i);
        return 1;
      }
      continue;
    }
    if (use_fork) {
      pid = fork();
      if (pid == 0) {
        execve(args[0], args, env);
        _exit(127);
      }
    } else if (posix_spawn(&pid, args[0], NULL, NULL, args, env) != 0) {
      pid = -1;
    }
    int status = 0;
    if (pid < 0 || wait4(pid, &status, 0, &child) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      fprintf(stderr, "fault_count: start %ld failed\n", i);
      return 1;
    }
    child_faults += child.ru_minflt;
  }
  getrusage(RUSAGE_SELF, &self1);
  if (use_system || use_popen) {  // the children's faults, reaped inside the C library
    getrusage(RUSAGE_CHILDREN, &child);
    child_faults = child.ru_minflt - children0.ru_minflt;
  }
  printf("child %.2f parent %.2f\n", (double)child_faults / (double)n,
         (double)(self1.ru_minflt - self0.ru_minflt) / (double)n);
  return 0;
}
