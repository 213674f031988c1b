// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// exit_by HOW STATUS: a rank that ends in one way, for the tests of its end line
// (shim/entry/exit_wrappers.cc). HOW is return (main's), exit, _exit, _Exit, vfork-_exit (a vfork child
// calls _exit(127), then the parent _exit(STATUS): the child is no rank and writes no end), thread-_exit (a
// second thread calls _exit while main blocks), or kill (SIGKILL to itself, which no code sees). It writes
// nothing itself.

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int status;

static void* ExitFromThread(void* arg) {
  (void)arg;
  _exit(status);
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  const char* how = argv[1];
  status = atoi(argv[2]);
  if (strcmp(how, "return") == 0) return status;
  if (strcmp(how, "exit") == 0) exit(status);
  if (strcmp(how, "_exit") == 0) _exit(status);
  if (strcmp(how, "_Exit") == 0) _Exit(status);
  if (strcmp(how, "vfork-_exit") == 0) {
    pid_t pid = vfork();
    if (pid == 0) _exit(127);
    int child = 0;
    if (pid < 0 || waitpid(pid, &child, 0) != pid || !WIFEXITED(child) || WEXITSTATUS(child) != 127) return 3;
    _exit(status);
  }
  if (strcmp(how, "thread-_exit") == 0) {
    pthread_t t;
    if (pthread_create(&t, NULL, ExitFromThread, NULL) != 0) return 3;
    pause();
  }
  if (strcmp(how, "kill") == 0) kill(getpid(), SIGKILL);
  return 2;
}
