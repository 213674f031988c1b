// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// env_walks [NAME=VALUE...] -- PROGRAM [ARG...]: runs PROGRAM with exactly the NAME=VALUE entries as its
// environment and counts the passes over that environment, from the loader's first to the program's exit
// (or its exec of another program): two hardware watchpoints (x86-64 debug registers, set through ptrace)
// on the environment's pointer array as the kernel laid it out, one on its first slot, which every pass
// reads first, one on its NULL, which every pass that looks at each entry reads last. Prints "begun B
// ended E"; with the same environment under another preloaded library (libempty.so: the floor), the
// difference is what the preloaded library adds. A pass over a copy (NUMABIND_BOUND's rank environment
// replaces `environ`) is not seen. Exits 2 without the figures when the debug registers cannot be set (not
// x86-64, a kernel or hypervisor without them, ptrace refused): the caller says the count cannot be made.

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__)
#define DEBUG_REG(i) (offsetof(struct user, u_debugreg) + (i) * sizeof(long))

int main(int argc, char** argv) {
  int sep = 1;
  while (sep < argc && strcmp(argv[sep], "--") != 0) ++sep;
  if (sep + 1 >= argc || sep == 1) {
    fprintf(stderr, "usage: env_walks NAME=VALUE... -- PROGRAM [ARG...]\n");
    return 2;
  }
  argv[sep] = NULL;  // argv[1..sep) is the environment, NULL-terminated
  pid_t pid = fork();
  if (pid == 0) {
    ptrace(PTRACE_TRACEME, 0, 0, 0);
    execve(argv[sep + 1], argv + sep + 1, argv + 1);  // stops with SIGTRAP before the loader runs
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status)) {
    fprintf(stderr, "env_walks: %s did not start\n", argv[sep + 1]);
    return 1;
  }
  // At the exec stop the stack holds argc, argv's pointers and NULL, then the environment's and NULL.
  struct user_regs_struct regs;
  ptrace(PTRACE_GETREGS, pid, 0, &regs);
  long nargs = ptrace(PTRACE_PEEKDATA, pid, regs.rsp, 0);
  unsigned long first = regs.rsp + 8 + 8 * (unsigned long)(nargs + 1), end = first;
  while (ptrace(PTRACE_PEEKDATA, pid, end, 0) != 0) end += 8;
  // DR0 on the first slot, DR1 on the NULL: enabled (L0, L1), break on read or write (RW 11), 8 bytes (LEN
  // 10).
  unsigned long dr7 = 1ul | 4ul | 3ul << 16 | 2ul << 18 | 3ul << 20 | 2ul << 22;
  errno = 0;
  if (ptrace(PTRACE_POKEUSER, pid, DEBUG_REG(0), first) != 0 ||
      ptrace(PTRACE_POKEUSER, pid, DEBUG_REG(1), end) != 0 ||
      ptrace(PTRACE_POKEUSER, pid, DEBUG_REG(7), dr7) != 0) {
    fprintf(stderr, "env_walks: no hardware watchpoints: %s\n", strerror(errno));
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return 2;
  }
  long begun = 0, ended = 0;
  ptrace(PTRACE_CONT, pid, 0, 0);
  for (;;) {
    if (waitpid(pid, &status, 0) != pid) return 1;
    if (WIFEXITED(status) || WIFSIGNALED(status)) break;
    int sig = WSTOPSIG(status);
    if (sig == SIGTRAP) {
      unsigned long dr6 = (unsigned long)ptrace(PTRACE_PEEKUSER, pid, DEBUG_REG(6), 0);
      if ((dr6 & 3) == 0) {  // a trap of the program's own (its exec of another program: the count ends)
        ptrace(PTRACE_DETACH, pid, 0, 0);
        waitpid(pid, &status, 0);
        break;
      }
      begun += (dr6 & 1) != 0;
      ended += (dr6 & 2) != 0;
      ptrace(PTRACE_POKEUSER, pid, DEBUG_REG(6), 0);
      sig = 0;
    }
    ptrace(PTRACE_CONT, pid, 0, sig);
  }
  printf("begun %ld ended %ld\n", begun, ended);
  return 0;
}
#else
int main(void) {
  fprintf(stderr, "env_walks: x86-64 only\n");
  return 2;
}
#endif
