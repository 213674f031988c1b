// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// environ_race MODE N: a launcher whose threads change the environment while others start ranks with it:
// with system and popen, which take no environment (the library points `environ` at the rank's for the
// call), or with posix_spawn given `environ` itself. It sets LOCAL_RANK=0 and LOCAL_WORLD_SIZE=1 with setenv
// first (it is no rank itself), then, by MODE:
//   setenv  N system calls; while each one's shell runs (it says so on a pipe and waits for a word back),
//           another thread adds four variables (setenv of a new name copies `environ`) and changes one.
//   nested  N rounds of two threads' system calls that overlap: A's shell starts, B's starts, A's call
//           returns, then B's.
//   window  one system call (the library prepares its plan), then N rounds of two: glibc's setenv of a new
//           name counts `environ`, reallocates its own array, then copies `environ` when that is not its
//           own; this program's realloc holds one setenv there until `environ` changes (at most 100 ms),
//           while a system call makes `environ` the rank's, then while one started before puts it back.
//   popen   one popen call, then N while another thread adds and removes a variable as fast as it can; that
//           thread's realloc always moves glibc's array and fills the old one with 0xff, so that a reader
//           of an array it freed faults.
//   spawn   one posix_spawn given `environ`, then N while another thread adds variables and removes them,
//           again and again; glibc's array has room for them (set and unset first, and that thread's
//           realloc keeps a block that is large enough), so it lengthens in place while the library copies
//           it.
// Then it copies its environment, starts one more rank with posix_spawn (LOCAL_RANK=1 of 2: another rank's
// NUMABIND_BOUND, built where the library keeps a spawn's rank environment), and prints
//   calls C failed F                             (the ranks it started before that one, and the failed)
//   launcher NUMABIND_BOUND absent|present
//   environment unchanged | environment changed: ENTRY
//   variables kept | variable lost: NAME         (LOCAL_RANK, LOCAL_WORLD_SIZE and window mode's)
// Exit status 0 unless it could not run (2).

#include <malloc.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char** environ;
extern void* __libc_realloc(void* p, size_t n);

enum { kRoom = 2000 };  // spawn mode: entries glibc's array has room for

static __thread int t_hold;             // this thread's next realloc waits for `environ` to change
static __thread int t_poison;           // this thread's reallocs move, and fill what they free with 0xff
static __thread int t_in_place;         // this thread's reallocs keep a block that is large enough
static int in_window;                   // a held realloc is waiting
static int windows;                     // the variables window mode set: WINDOW_0...
static int started[2], go[2], go_b[2];  // shell -> launcher, launcher -> shell (A's), B's
static long rounds;
static int done;  // the starting thread is done: the changing thread stops
static int failed;

static void Die(const char* what) {
  perror(what);
  exit(2);
}

static void Thread(pthread_t* t, void* (*run)(void*)) {
  if (pthread_create(t, NULL, run, NULL) != 0) Die("pthread_create");
}

static void ReadWord(int fd) {
  char c;
  while (read(fd, &c, 1) == 1 && c != '\n') {
  }
}

static void Say(int fd) {
  if (write(fd, "\n", 1) != 1) Die("write");
}

static void Sleep1ms(void) {
  struct timespec ms = {0, 1000 * 1000};
  nanosleep(&ms, NULL);
}

static void Count(int ok) {
  if (!ok) __atomic_add_fetch(&failed, 1, __ATOMIC_RELAXED);
}

static int Succeeded(int status) { return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0; }

/// glibc's setenv reallocates its array between counting `environ` and copying it: where a test holds it.
void* realloc(void* p, size_t n) {
  if (t_hold) {
    t_hold = 0;
    char** seen = environ;
    __atomic_store_n(&in_window, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < 100 && __atomic_load_n(&environ, __ATOMIC_ACQUIRE) == seen; ++i) Sleep1ms();
  }
  if (t_in_place && p != NULL && malloc_usable_size(p) >= n) return p;
  if (t_poison && p != NULL && n != 0) {
    size_t had = malloc_usable_size(p);
    void* q = malloc(n);
    if (q == NULL) return NULL;
    memcpy(q, p, had < n ? had : n);
    memset(p, 0xff, had);
    free(p);
    return q;
  }
  return __libc_realloc(p, n);
}

/// system of a shell that says it started, waits for a word on `go_fd`, then execs /bin/true.
static void SystemWaiting(int go_fd) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "echo >&%d; read w <&%d; exec /bin/true", started[1], go_fd);
  Count(Succeeded(system(cmd)));
}

static void* WaitingA(void* arg) {
  (void)arg;
  SystemWaiting(go[0]);
  return NULL;
}

static void* WaitingB(void* arg) {
  (void)arg;
  SystemWaiting(go_b[0]);
  return NULL;
}

static void* Setter(void* arg) {
  (void)arg;
  char name[64], value[32];
  for (long i = 0; i < rounds; ++i) {
    ReadWord(started[0]);
    for (int k = 0; k < 4; ++k) {
      snprintf(name, sizeof name, "RACE_%ld_%d", i, k);
      setenv(name, "v", 1);
    }
    snprintf(value, sizeof value, "%ld", i);
    setenv("RACE_COUNT", value, 1);
    Say(go[1]);
  }
  return NULL;
}

static void SetenvMode(void) {
  pthread_t t;
  Thread(&t, Setter);
  for (long i = 0; i < rounds; ++i) SystemWaiting(go[0]);
  pthread_join(t, NULL);
}

static void NestedMode(void) {
  for (long i = 0; i < rounds; ++i) {
    pthread_t a, b;
    Thread(&a, WaitingA);
    ReadWord(started[0]);  // A's shell runs: A's call has made `environ` its rank's
    Thread(&b, WaitingB);
    ReadWord(started[0]);  // B's shell runs
    Say(go[1]);
    pthread_join(a, NULL);  // A's call returned first
    Say(go_b[1]);
    pthread_join(b, NULL);
  }
}

/// setenv of a new name, held in its window.
static void* HeldSetenv(void* arg) {
  (void)arg;
  char name[32];
  snprintf(name, sizeof name, "WINDOW_%d", windows++);
  t_hold = 1;
  setenv(name, "1", 1);
  return NULL;
}

static void WaitInWindow(void) {
  while (!__atomic_load_n(&in_window, __ATOMIC_ACQUIRE)) Sleep1ms();
  __atomic_store_n(&in_window, 0, __ATOMIC_RELEASE);
}

static void WindowMode(void) {
  Count(Succeeded(system("exec /bin/true")));
  for (long i = 0; i < rounds; ++i) {
    pthread_t t, s;
    Thread(&t, HeldSetenv);  // held while a call makes `environ` the rank's
    WaitInWindow();
    Count(Succeeded(system("exec /bin/true")));
    pthread_join(t, NULL);
    Thread(&s, WaitingA);
    ReadWord(started[0]);    // the shell runs: `environ` is the rank's
    Thread(&t, HeldSetenv);  // held while the call puts the launcher's back
    WaitInWindow();
    Say(go[1]);
    pthread_join(s, NULL);
    pthread_join(t, NULL);
  }
}

static void* Churn(void* arg) {
  (void)arg;
  t_poison = 1;
  while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
    setenv("RACE_CHURN", "v", 1);  // a new name each time: glibc reallocates its array
    unsetenv("RACE_CHURN");
  }
  return NULL;
}

static void Popen(void) {
  FILE* f = popen("exec /bin/true", "r");
  Count(f != NULL && pclose(f) == 0);
}

static void PopenMode(void) {
  Popen();
  pthread_t t;
  Thread(&t, Churn);
  for (long i = 0; i < rounds; ++i) Popen();
  __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
  pthread_join(t, NULL);
}

static void* Append(void* arg) {
  (void)arg;
  char name[32];
  t_in_place = 1;
  while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
    for (int i = 0; i < kRoom / 2; ++i) {
      snprintf(name, sizeof name, "APPEND_%d", i);
      setenv(name, "v", 1);
    }
    for (int i = 0; i < kRoom / 2; ++i) {
      snprintf(name, sizeof name, "APPEND_%d", i);
      unsetenv(name);
    }
  }
  return NULL;
}

/// posix_spawn of /bin/true as rank `env` says, waited for.
static void Spawn(char** env) {
  char* argv[] = {"/bin/true", NULL};
  pid_t pid;
  int st = 0;
  Count(posix_spawn(&pid, argv[0], NULL, NULL, argv, env) == 0 && waitpid(pid, &st, 0) == pid &&
        Succeeded(st));
}

static void SpawnMode(void) {
  Spawn(environ);
  char name[32];
  for (int i = 0; i < kRoom; ++i) {
    snprintf(name, sizeof name, "ROOM_%d", i);
    setenv(name, "v", 1);
  }
  for (int i = 0; i < kRoom; ++i) {
    snprintf(name, sizeof name, "ROOM_%d", i);
    unsetenv(name);
  }
  pthread_t t;
  Thread(&t, Append);
  for (long i = 0; i < rounds; ++i) Spawn(environ);
  __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
  pthread_join(t, NULL);
}

/// posix_spawn of LOCAL_RANK=1 of 2, with this process's other entries.
static void SpawnOtherRank(void) {
  size_t n = 0;
  while (environ[n] != NULL) ++n;
  char** env = calloc(n + 3, sizeof(char*));
  if (env == NULL) Die("calloc");
  size_t k = 0;
  for (size_t i = 0; i < n; ++i) {
    if (strncmp(environ[i], "LOCAL_RANK=", 11) != 0 && strncmp(environ[i], "LOCAL_WORLD_SIZE=", 17) != 0)
      env[k++] = environ[i];
  }
  env[k++] = "LOCAL_RANK=1";
  env[k++] = "LOCAL_WORLD_SIZE=2";
  env[k] = NULL;
  Spawn(env);
  free(env);
}

/// The first entry of `before` (n entries) that `environ` no longer has where it was, or nullptr.
static const char* Changed(char** before, size_t n) {
  size_t m = 0;
  while (environ[m] != NULL) ++m;
  for (size_t i = 0; i < n; ++i) {
    if (i >= m || strcmp(before[i], environ[i]) != 0) return before[i];
  }
  return m == n ? NULL : environ[n];
}

static const char* Lost(void) {
  static char name[32];
  if (getenv("LOCAL_RANK") == NULL) return "LOCAL_RANK";
  if (getenv("LOCAL_WORLD_SIZE") == NULL) return "LOCAL_WORLD_SIZE";
  for (int i = 0; i < windows; ++i) {
    snprintf(name, sizeof name, "WINDOW_%d", i);
    if (getenv(name) == NULL) return name;
  }
  return NULL;
}

int main(int argc, char** argv) {
  const char* mode = argc == 3 ? argv[1] : "";
  rounds = argc == 3 ? atol(argv[2]) : 0;
  if (pipe(started) != 0 || pipe(go) != 0 || pipe(go_b) != 0) Die("pipe");
  setenv("LOCAL_RANK", "0", 1);
  setenv("LOCAL_WORLD_SIZE", "1", 1);
  long calls = rounds;
  if (strcmp(mode, "setenv") == 0) {
    SetenvMode();
  } else if (strcmp(mode, "nested") == 0) {
    NestedMode();
    calls = 2 * rounds;
  } else if (strcmp(mode, "window") == 0) {
    WindowMode();
    calls = 2 * rounds + 1;
  } else if (strcmp(mode, "popen") == 0) {
    PopenMode();
    calls = rounds + 1;
  } else if (strcmp(mode, "spawn") == 0) {
    SpawnMode();
    calls = rounds + 1;
  } else {
    fprintf(stderr, "usage: environ_race setenv|nested|window|popen|spawn N\n");
    return 2;
  }
  // What the environment holds now, then one more rank through posix_spawn: it must not change.
  size_t n = 0;
  while (environ[n] != NULL) ++n;
  char** before = calloc(n + 1, sizeof(char*));
  if (before == NULL) Die("calloc");
  for (size_t i = 0; i < n; ++i) before[i] = strdup(environ[i]);
  SpawnOtherRank();
  printf("calls %ld failed %d\n", calls, failed);
  printf("launcher NUMABIND_BOUND %s\n", getenv("NUMABIND_BOUND") != NULL ? "present" : "absent");
  const char* changed = Changed(before, n);
  if (changed == NULL) {
    printf("environment unchanged\n");
  } else {
    printf("environment changed: ");
    for (const char* c = changed; *c != '\0' && c - changed < 120; ++c)
      putchar(*c >= ' ' && *c <= '~' ? *c : '?');
    putchar('\n');
  }
  const char* lost = Lost();
  if (lost == NULL) {
    printf("variables kept\n");
  } else {
    printf("variable lost: %s\n", lost);
  }
  return 0;
}
