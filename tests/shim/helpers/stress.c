/* stress: many threads starting ranks at once through every kind of entry point, for the guest's stress
 * and fault checks (tests/vm/stress.sh).
 *   stress THREADS SPAWNS NRANKS CHECKER
 * starts SPAWNS ranks in all, spread over THREADS threads. Spawn k is local rank k mod NRANKS (LOCAL_RANK and
 * LOCAL_WORLD_SIZE added to the environment it is started with) and goes through entry point k mod 8:
 * posix_spawn, posix_spawnp, fork+execve, vfork+execve, _Fork+execve, fork+execvpe, system, popen (the last
 * two through /bin/sh, which execs CHECKER as the rank). CHECKER (rank_check) exits 0 when its affinity is
 * what the plan gives its rank, 3 when it is not. Prints one line: stress: N spawns, N bound as planned, N
 * wrong, N crashed, N failed, S s "crashed": a child killed by a signal; "failed": a spawn that failed or a
 * child that exited otherwise. With STRESS_FENCE=P, the test changes the launcher's cpuset between creating
 * P.begin and P.end: Linux before 6.2 resets every task of a cpuset to the new CPUs when they change, so a
 * rank that was already running then (started before P.end, still running at P.begin) may be found with the
 * cpuset's CPUs. Those are counted apart ("N reset by the kernel"), and excused; a rank started after P.end
 * must be exact. With STRESS_ENTRIES=N (1-8), only the first N entry points are used (spawn k goes through
 * entry k mod N). Exit status: 0 when every spawn was bound as planned or excused. */
#include <errno.h>
#include <pthread.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char** environ;
extern pid_t _Fork(void);

static int threads, spawns, nranks, entries = 8;
static const char* checker;
static atomic_int next_spawn, ok, wrong, crashed, failed, reset;
static char fence_begin[4096], fence_end[4096]; /* "" without STRESS_FENCE */

static int Exists(const char* path) { return path[0] != '\0' && access(path, F_OK) == 0; }

enum { kEntries = 8 };
static const char* const kEntryNames[kEntries] = {"posix_spawn",  "posix_spawnp", "fork+execve",
                                                  "vfork+execve", "_Fork+execve", "fork+execvpe",
                                                  "system",       "popen"};

/* environ plus LOCAL_RANK and LOCAL_WORLD_SIZE; prepared before the spawn, freed after. */
static char** RankEnv(int rank, char* rank_var, char* size_var) {
  int n = 0;
  while (environ[n] != NULL) ++n;
  char** env = calloc((size_t)n + 3, sizeof(char*));
  if (env == NULL) return NULL;
  memcpy(env, environ, (size_t)n * sizeof(char*));
  snprintf(rank_var, 32, "LOCAL_RANK=%d", rank);
  snprintf(size_var, 32, "LOCAL_WORLD_SIZE=%d", nranks);
  env[n] = rank_var;
  env[n + 1] = size_var;
  return env;
}

static void Count(int status) {
  if (status == -1)
    atomic_fetch_add(&failed, 1);
  else if (WIFSIGNALED(status))
    atomic_fetch_add(&crashed, 1);
  else if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    atomic_fetch_add(&ok, 1);
  else if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
    atomic_fetch_add(&wrong, 1);
  else
    atomic_fetch_add(&failed, 1);
}

static int WaitFor(pid_t pid) {
  int status;
  if (pid <= 0) return -1;
  while (waitpid(pid, &status, 0) != pid) {
    if (errno != EINTR) return -1;
  }
  return status;
}

/* One spawn of rank `rank` through entry point `entry`; returns the wait status, or -1. */
static int SpawnOne(int entry, int rank) {
  char rank_var[32], size_var[32];
  char** env = RankEnv(rank, rank_var, size_var);
  if (env == NULL) return -1;
  char* argv[] = {(char*)checker, NULL};
  pid_t pid = -1;
  int status = -1;
  switch (entry) {
    case 0:
    case 1: {
      int e = (entry == 0 ? posix_spawn : posix_spawnp)(&pid, checker, NULL, NULL, argv, env);
      status = e == 0 ? WaitFor(pid) : -1;
      break;
    }
    case 2:
    case 3:
    case 4:
    case 5:
      pid = entry == 3 ? vfork() : entry == 4 ? _Fork() : fork();
      if (pid == 0) {
        if (entry == 5)
          execvpe(checker, argv, env);
        else
          execve(checker, argv, env);
        _exit(127);
      }
      status = WaitFor(pid);
      break;
    default: {
      /* The shell is started without the rank; it execs the checker with it, through its own execve. */
      char cmd[4200];
      snprintf(cmd, sizeof cmd, "LOCAL_RANK=%d LOCAL_WORLD_SIZE=%d exec '%s'", rank, nranks, checker);
      if (entry == 6) {
        status = system(cmd);
      } else {
        FILE* f = popen(cmd, "r");
        if (f != NULL) {
          char buf[256];
          while (fgets(buf, sizeof buf, f) != NULL) {
          }
          status = pclose(f);
        }
      }
      break;
    }
  }
  free(env);
  return status;
}

static void* Worker(void* arg) {
  (void)arg;
  for (;;) {
    int k = atomic_fetch_add(&next_spawn, 1);
    if (k >= spawns) return NULL;
    int settled = Exists(fence_end); /* the cpuset changed before this rank started */
    int status = SpawnOne(k % entries, k % nranks);
    if (!settled && Exists(fence_begin) && WIFEXITED(status) && WEXITSTATUS(status) == 3) {
      atomic_fetch_add(&reset, 1);
      continue;
    }
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0) && atomic_load(&failed) + atomic_load(&wrong) < 5) {
      fprintf(stderr, "stress: spawn %d (rank %d via %s): status %#x\n", k, k % nranks,
              kEntryNames[k % entries], (unsigned)status);
    }
    Count(status);
  }
}

int main(int argc, char** argv) {
  if (argc != 5 || (threads = atoi(argv[1])) <= 0 || (spawns = atoi(argv[2])) <= 0 ||
      (nranks = atoi(argv[3])) <= 0) {
    fprintf(stderr, "usage: stress THREADS SPAWNS NRANKS CHECKER\n");
    return 2;
  }
  checker = argv[4];
  const char* only = getenv("STRESS_ENTRIES");
  if (only != NULL && *only != '\0' && ((entries = atoi(only)) < 1 || entries > kEntries)) {
    fprintf(stderr, "stress: STRESS_ENTRIES=%s: expected 1 to %d\n", only, kEntries);
    return 2;
  }
  const char* fence = getenv("STRESS_FENCE");
  if (fence != NULL && *fence != '\0') {
    snprintf(fence_begin, sizeof fence_begin, "%s.begin", fence);
    snprintf(fence_end, sizeof fence_end, "%s.end", fence);
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  pthread_t tid[256];
  if (threads > 256) threads = 256;
  for (int i = 0; i < threads; ++i) pthread_create(&tid[i], NULL, Worker, NULL);
  for (int i = 0; i < threads; ++i) pthread_join(tid[i], NULL);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  printf("stress: %d spawns, %d bound as planned, %d wrong, %d crashed, %d failed, %.1f s", spawns,
         atomic_load(&ok), atomic_load(&wrong), atomic_load(&crashed), atomic_load(&failed), s);
  if (fence_begin[0] != '\0') printf(", %d reset by the kernel", atomic_load(&reset));
  printf("\n");
  return atomic_load(&ok) + atomic_load(&reset) == spawns ? 0 : 1;
}
