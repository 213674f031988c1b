/* entry_launcher: a C launcher that starts ranks through one named entry point, for the shim's tests.
 *   entry_launcher ENTRY NRANKS PROGRAM [ARGS...]
 * starts NRANKS copies of PROGRAM, rank i with LOCAL_RANK=i and LOCAL_WORLD_SIZE=NRANKS added to the
 * environment it passes, through ENTRY, and waits for them. ENTRY is one of:
 *   execve execv execvp execvpe execl execle execlp fexecve execveat  (fork, then that exec in the child)
 *   vfork-execve _Fork-execve                                         (other ways to make the child)
 *   posix_spawn posix_spawnp system popen                             (the C library makes the child)
 *   direct-execve   the launcher itself execs PROGRAM as rank 0 (NRANKS must be 1)
 *   threads-vfork   NRANKS threads at once, each vfork + execve
 *   failed-execve   fork; the child execs a missing program as rank 0, then reports its own affinity
 *                   ("after-failed-exec cpus=LIST") and runs PROGRAM unbound with execv
 *   small:ENTRY     any of the above but threads-vfork and direct-execve, run from a thread whose stack is
 *                   16 KiB (glibc's PTHREAD_STACK_MIN), as a launcher's spawning thread may have
 * With NB_TEST_MAPS set, the launcher prints "maps after rank R: N" (the lines of its /proc/self/maps) after
 * each rank exits: what a spawn left mapped in it.
 * Also built with musl-gcc (BUILD/helpers/musl/entry_launcher) when musl-tools is installed.
 * Rank variables reach the child's environment without setenv (environ is replaced in the child), so only
 * the entry point under test sees them. Exit status: 0 when every child exited 0. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;
extern pid_t _Fork(void);

static const char* entry;
static char** prog_argv;

/* environ plus LOCAL_RANK and LOCAL_WORLD_SIZE (allocated before any fork). */
static char** RankEnv(int rank, int nranks) {
  int n = 0;
  while (environ[n] != NULL) ++n;
  char** env = calloc((size_t)n + 3, sizeof(char*));
  memcpy(env, environ, (size_t)n * sizeof(char*));
  if (asprintf(&env[n], "LOCAL_RANK=%d", rank) < 0 ||
      asprintf(&env[n + 1], "LOCAL_WORLD_SIZE=%d", nranks) < 0) {
    perror("asprintf");
    exit(2);
  }
  return env;
}

static char* Quote(char** argv) { /* argv joined for sh -c, each word single-quoted */
  size_t cap = 16;
  for (int i = 0; argv[i]; ++i) cap += strlen(argv[i]) * 4 + 3;
  char *s = calloc(cap, 1), *p = s;
  for (int i = 0; argv[i]; ++i) {
    *p++ = '\'';
    for (const char* c = argv[i]; *c; ++c) {
      if (*c == '\'') {
        memcpy(p, "'\\''", 4);
        p += 4;
      } else
        *p++ = *c;
    }
    *p++ = '\'';
    *p++ = ' ';
  }
  return s;
}

/* Child side: exec PROGRAM with env through the named exec. */
static void ExecThrough(const char* how, char** env) {
  char** a = prog_argv;
  if (strcmp(how, "execve") == 0)
    execve(a[0], a, env);
  else if (strcmp(how, "execvpe") == 0)
    execvpe(a[0], a, env);
  else if (strcmp(how, "execle") == 0) {
    /* execle's envp follows the NULL that ends the arguments, so the call must name exactly argc of them */
    int argc = 0;
    while (a[argc] != NULL) ++argc;
    if (argc == 1)
      execle(a[0], a[0], (char*)NULL, env);
    else if (argc == 2)
      execle(a[0], a[0], a[1], (char*)NULL, env);
    else if (argc == 3)
      execle(a[0], a[0], a[1], a[2], (char*)NULL, env);
    else
      execle(a[0], a[0], a[1], a[2], a[3], (char*)NULL, env);
  } else if (strcmp(how, "fexecve") == 0) {
    int fd = open(a[0], O_RDONLY | O_CLOEXEC);
    fexecve(fd, a, env);
  }
#if defined(__GLIBC__) /* musl has no execveat wrapper; this file is also built with musl-gcc */
  else if (strcmp(how, "execveat") == 0)
    execveat(AT_FDCWD, a[0], a, env, 0);
#endif
  else {
    environ = env; /* the environ-taking calls; no setenv, so only the exec sees the rank */
    if (strcmp(how, "execv") == 0)
      execv(a[0], a);
    else if (strcmp(how, "execvp") == 0)
      execvp(a[0], a);
    else if (strcmp(how, "execl") == 0)
      execl(a[0], a[0], a[1], a[2], a[3], (char*)NULL);
    else if (strcmp(how, "execlp") == 0)
      execlp(a[0], a[0], a[1], a[2], a[3], (char*)NULL);
  }
  _exit(127);
}

static int Launch(int nranks);

static void* SmallStackThread(void* arg) { return (void*)(long)Launch((int)(long)arg); }

/* Launch(nranks) on a thread with a 16 KiB stack (at least the C library's minimum); its result. */
static int LaunchOnSmallStack(int nranks) {
  size_t size = 16384 > PTHREAD_STACK_MIN ? 16384 : PTHREAD_STACK_MIN;
  pthread_attr_t attr;
  pthread_t t;
  void* r = (void*)1L;
  if (pthread_attr_init(&attr) != 0 || pthread_attr_setstacksize(&attr, size) != 0 ||
      pthread_create(&t, &attr, SmallStackThread, (void*)(long)nranks) != 0 || pthread_join(t, &r) != 0) {
    fprintf(stderr, "entry_launcher: cannot run a thread with a %zu-byte stack\n", size);
    return 1;
  }
  return (int)(long)r;
}

/* vfork, then execve in the child, which never returns from here (the frame is its parent's). */
static pid_t VforkExecve(char** env) {
  pid_t pid = vfork();
  if (pid == 0) ExecThrough("execve", env);
  return pid;
}

/* The lines of /proc/self/maps: one per mapping. */
static int CountMaps(void) {
  FILE* f = fopen("/proc/self/maps", "r");
  int n = 0, c;
  while (f != NULL && (c = getc(f)) != EOF) n += c == '\n';
  if (f != NULL) fclose(f);
  return n;
}

static int Wait(pid_t pid) {
  int status;
  if (pid <= 0 || waitpid(pid, &status, 0) != pid) return 1;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

static void* VforkThread(void* arg) {
  int rank = (int)(long)arg;
  char** env = RankEnv(rank, 0);
  pid_t pid = vfork();
  if (pid == 0) {
    execve(prog_argv[0], prog_argv, env);
    _exit(127);
  }
  return (void*)(long)Wait(pid);
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: entry_launcher ENTRY NRANKS PROGRAM [ARGS...] (at most 3 ARGS for execl*)\n");
    return 2;
  }
  entry = argv[1];
  int nranks = atoi(argv[2]);
  prog_argv = argv + 3;
  if (strcmp(entry, "threads-vfork") == 0) {
    int failures = 0;
    pthread_t t[64];
    for (int i = 0; i < nranks && i < 64; ++i) pthread_create(&t[i], NULL, VforkThread, (void*)(long)i);
    for (int i = 0; i < nranks && i < 64; ++i) {
      void* r;
      pthread_join(t[i], &r);
      failures += (int)(long)r;
    }
    return failures != 0;
  }
  if (strcmp(entry, "direct-execve") == 0) {
    execve(prog_argv[0], prog_argv, RankEnv(0, 1));
    perror("execve");
    return 127;
  }
  if (strncmp(entry, "small:", 6) == 0) {
    entry += 6;
    return LaunchOnSmallStack(nranks);
  }
  return Launch(nranks);
}

/* Starts the ranks through `entry`, one after the other; 0 when every one exited 0. */
static int Launch(int nranks) {
  int failures = 0;
  for (int rank = 0; rank < nranks; ++rank) {
    char** env = RankEnv(rank, nranks);
    pid_t pid = -1;
    if (strcmp(entry, "posix_spawn") == 0 || strcmp(entry, "posix_spawnp") == 0) {
      int (*spawn)(pid_t*, const char*, const posix_spawn_file_actions_t*, const posix_spawnattr_t*,
                   char* const[], char* const[]) = entry[11] == 'p' ? posix_spawnp : posix_spawn;
      int e = spawn(&pid, prog_argv[0], NULL, NULL, prog_argv, env);
      if (e != 0) {
        fprintf(stderr, "%s: %s\n", entry, strerror(e));
        pid = -1;
      }
    } else if (strcmp(entry, "system") == 0 || strcmp(entry, "popen") == 0) {
      char** saved = environ;
      environ = env;
      char* cmd = Quote(prog_argv);
      if (entry[0] == 's') {
        int st = system(cmd);
        failures += !(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
        if (st == -1) fprintf(stderr, "system: %s\n", strerror(errno));
      } else {
        FILE* f = popen(cmd, "r");
        if (f == NULL) {
          fprintf(stderr, "popen: %s\n", strerror(errno));
          ++failures;
        } else {
          char buf[4096];
          while (fgets(buf, sizeof buf, f)) fputs(buf, stdout);
          int st = pclose(f);
          failures += !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        }
      }
      environ = saved;
      continue;
    } else if (strcmp(entry, "failed-execve") == 0) {
      pid = fork();
      if (pid == 0) {
        char* missing[] = {"/nonexistent/numabind-test", NULL};
        int r = execve(missing[0], missing, env);
        int e = errno;
        cpu_set_t set;
        sched_getaffinity(0, sizeof set, &set);
        printf("after-failed-exec ret=%d errno=%d cpus=", r, e);
        for (int c = 0, first = 1; c < CPU_SETSIZE; ++c) {
          if (CPU_ISSET(c, &set)) {
            printf(first ? "%d" : ",%d", c);
            first = 0;
          }
        }
        printf("\n");
        fflush(stdout);
        execv(prog_argv[0], prog_argv);
        _exit(127);
      }
    } else if (strcmp(entry, "vfork-execve") == 0) {
      pid = VforkExecve(env);
    } else {
      const char* how = entry;
      if (strcmp(entry, "_Fork-execve") == 0) {
        pid = _Fork();
        how = "execve";
      } else
        pid = fork();
      if (pid == 0) ExecThrough(how, env);
    }
    failures += Wait(pid);
    if (getenv("NB_TEST_MAPS") != NULL) printf("maps after rank %d: %d\n", rank, CountMaps());
  }
  return failures != 0;
}
