// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Starting the processes the driver measures, each with exactly the environment its variant calls for.

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver.h"

extern char** environ;

char** BaseEnv(void) {
  static const char* const kDrop[] = {
      "LD_PRELOAD=",      "NUMABIND_",  "LOCAL_RANK=",    "LOCAL_WORLD_SIZE=",     "OMPI_COMM_WORLD_LOCAL_",
      "MPI_LOCAL",        "PMI_LOCAL_", "PALS_LOCAL_",    "MV2_COMM_WORLD_LOCAL_", "JSM_NAMESPACE_LOCAL_",
      "FLUX_TASK_LOCAL_", "MPT_LRANK=", "SLURM_LOCALID=", "SLURM_NTASKS_PER_NODE="};
  size_t n = 0;
  while (environ[n]) n++;
  char** env = calloc(n + 8, sizeof(char*));
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    int drop = 0;
    for (size_t d = 0; d < sizeof(kDrop) / sizeof(kDrop[0]); d++)
      drop |= strncmp(environ[i], kDrop[d], strlen(kDrop[d])) == 0;
    if (!drop) env[k++] = environ[i];
  }
  return env;
}

char** VariantEnv(const Paths* p, const Variant* v) {
  char** env = BaseEnv();
  size_t k = 0;
  while (env[k]) k++;
  char buf[700];
  if (v->preload != kPreloadNone) {
    if (v->preload == kPreloadShimB)
      snprintf(buf, sizeof(buf), "LD_PRELOAD=%s", p->shim_b);
    else
      snprintf(buf, sizeof(buf), "LD_PRELOAD=%s/%s", p->build,
               v->preload == kPreloadShim ? "libnumabind.so" : "libempty.so");
    env[k++] = strdup(buf);
  }
  if (v->policy[0]) {
    snprintf(buf, sizeof(buf), "NUMABIND_POLICY=%s", v->policy);
    env[k++] = strdup(buf);
  }
  return env;
}

static void FreeVariantEnv(char** env, const Variant* v) {
  size_t k = 0;
  while (env[k]) k++;
  int added = (v->preload != kPreloadNone) + (v->policy[0] != '\0');
  for (int i = 0; i < added; i++) free(env[k - 1 - i]);
  free(env);
}

// Starts argv with stdin from in_fd (-1: inherited) and stdout to out_fd; stderr appended to p->errlog.
static int Spawn(const Paths* p, char* const argv[], char* const envp[], int in_fd, int out_fd, pid_t* pid) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (in_fd >= 0) posix_spawn_file_actions_adddup2(&fa, in_fd, 0);
  posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
  posix_spawn_file_actions_addopen(&fa, 2, p->errlog, O_WRONLY | O_CREAT | O_APPEND, 0644);
  int e = posix_spawn(pid, argv[0], &fa, NULL, argv, envp);
  posix_spawn_file_actions_destroy(&fa);
  return e;
}

static int Wait(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int RunCaptured(const Paths* p, char* const argv[], char* const envp[], char** out, size_t* outlen) {
  int fds[2];
  size_t cap = 1 << 16, len = 0;
  char* buf = malloc(cap);
  buf[0] = '\0';
  *out = buf;
  *outlen = 0;
  if (pipe2(fds, O_CLOEXEC) != 0) return -1;
  pid_t pid;
  int e = Spawn(p, argv, envp, -1, fds[1], &pid);
  close(fds[1]);
  if (e) {
    close(fds[0]);
    errno = e;
    return -1;
  }
  for (;;) {
    if (len + 1 >= cap) buf = realloc(buf, cap *= 2);
    ssize_t r = read(fds[0], buf + len, cap - len - 1);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    len += (size_t)r;
  }
  close(fds[0]);
  buf[len] = '\0';
  *out = buf;
  *outlen = len;
  return Wait(pid);
}

void FirstLine(const char* path, char* buf, size_t cap) {
  buf[0] = '\0';
  FILE* f = fopen(path, "re");
  if (!f) return;
  if (fgets(buf, (int)cap, f)) buf[strcspn(buf, "\n")] = '\0';
  fclose(f);
}

// argv of `spawn_bench spawn MODE METHOD RANKS CPUMAP PROG ARG0 [ARG...]` for v; argv must hold 16.
static void SpawnerArgv(const Paths* p, const Results* res, const Variant* v, int m, const char* mode,
                        char* ranks, size_t ranks_cap, char* method, size_t method_cap, char** argv) {
  snprintf(ranks, ranks_cap, "%d", v->ranks);
  int k = 0;
  argv[k++] = (char*)p->self;
  argv[k++] = "spawn";
  argv[k++] = (char*)mode;
  snprintf(method, method_cap, "%s%s", kMethodKey[m], v->raw_bind ? ":bind" : "");
  argv[k++] = method;
  argv[k++] = ranks;
  argv[k++] = (char*)res->cpumap;
  if (v->numactl) {
    argv[k++] = (char*)p->numactl;
    argv[k++] = "numactl";
    argv[k++] = "--physcpubind=@CPU@";
    argv[k++] = "/bin/true";
  } else {
    argv[k++] = "/bin/true";
    argv[k++] = "true";
  }
  argv[k] = NULL;
}

int RunSpawnerFor(const Paths* p, const Results* res, const Variant* v, int m, const char* mode, char** out,
                  size_t* outlen) {
  char ranks[16], method[32];
  char* argv[16];
  SpawnerArgv(p, res, v, m, mode, ranks, sizeof(ranks), method, sizeof(method), argv);
  char** env = VariantEnv(p, v);
  int rc = RunCaptured(p, argv, env, out, outlen);
  FreeVariantEnv(env, v);
  return rc;
}

int StartServer(const Paths* p, const Results* res, const Variant* v, int m, Server* server) {
  char ranks[16], method[32];
  char* argv[16];
  SpawnerArgv(p, res, v, m, "serve", ranks, sizeof(ranks), method, sizeof(method), argv);
  int cmd[2], rec[2];
  if (pipe2(cmd, O_CLOEXEC) != 0) return 0;
  if (pipe2(rec, O_CLOEXEC) != 0) {
    close(cmd[0]);
    close(cmd[1]);
    return 0;
  }
  char** env = VariantEnv(p, v);
  pid_t pid;
  int e = Spawn(p, argv, env, cmd[0], rec[1], &pid);
  FreeVariantEnv(env, v);
  close(cmd[0]);
  close(rec[1]);
  if (e) {
    close(cmd[1]);
    close(rec[0]);
    return 0;
  }
  server->pid = pid;
  server->cmd_fd = cmd[1];
  server->record_fd = rec[0];
  return 1;
}

int StopServer(Server* server) {
  close(server->cmd_fd);
  close(server->record_fd);
  return Wait(server->pid);
}
