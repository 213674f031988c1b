/* hostile: a launcher that uses the C library the way unusual but correct programs do, for the shim's
 * "never break the host program" tests. Each mode prints one line "MODE: ..." with what it observed and
 * exits 0 when the program saw what it would see without the shim.
 *   hostile spawn-fail          posix_spawn of a missing program as rank 0, pid preset to -1: *pid unchanged
 *   hostile helper-invisible    prepares (first fork), then checks that no SIGCHLD came but its own child's
 *                               and that waitid(P_ALL) finds no other child (the planner helper)
 *   hostile chdir-fork DIR      changes to DIR, then forks (the shim prepares there) and waits
 *   hostile seccomp-mempolicy enosys|kill|eperm:MODE,... PROGRAM [ARGS]
 *                               a seccomp filter makes set_mempolicy fail with ENOSYS or kill the process,
 *                               or fail with EPERM for the listed modes (MPOL_*) only,
 *                               then PROGRAM runs as rank 0 of 1 twice: posix_spawn, then fork + execve
 *   hostile no-fallocate PROGRAM [ARGS]
 *                               a seccomp filter makes fallocate fail with EOPNOTSUPP (as on a file system
 *                               without it), then PROGRAM runs in its place (execvp): its tree inherits it
 *   hostile fork-in-handler     a timer signal's handler calls _Fork while the main loop allocates: counts
 *                               the allocations made inside the handler (this program's malloc counts them)
 *   hostile clone-while-preparing FIFO
 *                               one thread forks (the shim prepares: NUMABIND_TOPOLOGY=FIFO holds the planner
 *                               helper, which waits for data) and, once the helper has opened FIFO, the main
 *                               thread makes a child with clone(); that child forks
 *   hostile burst N PROGRAM [ARGS]
 *                               posix_spawn N copies of PROGRAM back to back (no rank variable: for
 *                               NUMABIND_MATCH), their standard input a pipe it closes once all are
 *                               spawned (report --hold lives until then), then waits for them all and
 *                               prints "burst: pid PID signal|exit N" for each that did not exit 0
 *   hostile small-stack PROGRAM [ARGS]
 *                               from a thread with a 16 KiB stack: PROGRAM as rank 0 by posix_spawn (the
 *                               first spawn: the shim prepares there), by fork + execve, by vfork + execve,
 *                               and twice by posix_spawn with "numabind-by-order" as its last argument (for
 *                               NUMABIND_MATCH; the first lives until the second has ended, so that the
 *                               second finds it alive);
 *                               prints the most stack the thread used
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char** environ;

/* environ plus LOCAL_RANK=rank. */
static char** RankEnv(int rank) {
  int n = 0;
  while (environ[n] != NULL) ++n;
  char** env = calloc((size_t)n + 2, sizeof(char*));
  memcpy(env, environ, (size_t)n * sizeof(char*));
  if (asprintf(&env[n], "LOCAL_RANK=%d", rank) < 0) exit(2);
  return env;
}

static int SpawnFail(void) {
  pid_t pid = -1;
  char* argv[] = {"/nonexistent/numabind-test", NULL};
  int r = posix_spawn(&pid, argv[0], NULL, NULL, argv, RankEnv(0));
  pid_t pid2 = -1;
  int r2 = posix_spawn(&pid2, argv[0], NULL, NULL, argv, environ); /* not a rank */
  printf("spawn-fail: ret=%d pid=%d ret2=%d pid2=%d\n", r, (int)pid, r2, (int)pid2);
  return r != 0 && pid == -1 && r2 != 0 && pid2 == -1 ? 0 : 1;
}

static volatile sig_atomic_t other_sigchld, own_sigchld;
static volatile pid_t own_child;
static void OnChld(int sig, siginfo_t* info, void* ctx) {
  (void)sig, (void)ctx;
  if (info->si_pid == own_child)
    own_sigchld = 1;
  else
    other_sigchld = info->si_pid;
}

static int HelperInvisible(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = OnChld;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGCHLD, &sa, NULL);
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, NULL); /* the handler runs once own_child is known */
  pid_t pid = fork();                  /* the shim prepares here, before the fork */
  if (pid == 0) _exit(0);
  own_child = pid;
  sigprocmask(SIG_UNBLOCK, &chld, NULL);
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  /* No sleep: ECHILD below means no child at all, live or dead, is left to send a SIGCHLD, and one sent
   * before (a helper that was this process's child) is handled by the time waitid returns. */
  siginfo_t info;
  memset(&info, 0, sizeof info);
  int w = waitid(P_ALL, 0, &info, WEXITED | WNOHANG);
  int werr = errno;
  int zombie = w == 0 && info.si_pid != 0;
  printf("helper-invisible: other_sigchld=%d waitid=%d errno=%d si_pid=%d\n", (int)other_sigchld, w,
         w < 0 ? werr : 0, (int)info.si_pid);
  return other_sigchld == 0 && !zombie && w < 0 && werr == ECHILD ? 0 : 1;
}

static int ChdirFork(const char* dir) {
  if (chdir(dir) != 0) {
    perror("chdir");
    return 2;
  }
  pid_t pid = fork();
  if (pid == 0) _exit(0);
  int status;
  waitpid(pid, &status, 0);
  printf("chdir-fork: forked in %s\n", dir);
  return 0;
}

static int SeccompMempolicy(const char* how, char** prog) {
  struct sock_filter f[24] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_set_mempolicy, 0, 1),
      BPF_STMT(BPF_RET | BPF_K,
               strcmp(how, "kill") == 0 ? SECCOMP_RET_KILL_PROCESS : SECCOMP_RET_ERRNO | ENOSYS),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  unsigned short n = 4;
  if (strncmp(how, "eperm:", 6) == 0) {  // EPERM for the listed modes only ("eperm:5,2"), as a profile might
    n = 0;
    f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
    f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_set_mempolicy, 1, 0);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]));
    for (const char* m = how + 6; *m != '\0' && n < 20; m += strspn(m, "0123456789"), m += *m == ',') {
      f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)atoi(m), 0, 1);
      f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
    }
    f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  }
  struct sock_fprog fprog = {n, f};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog) != 0) {
    perror("seccomp");
    return 2;
  }
  char** env = RankEnv(0);
  int failures = 0, status;
  pid_t pid;
  int e = posix_spawn(&pid, prog[0], NULL, NULL, prog, env);
  failures += e != 0 || waitpid(pid, &status, 0) != pid || status != 0;
  pid = fork();
  if (pid == 0) {
    execve(prog[0], prog, env);
    _exit(127);
  }
  failures += pid < 0 || waitpid(pid, &status, 0) != pid || status != 0;
  printf("seccomp-mempolicy: %s failures=%d\n", how, failures);
  return failures != 0;
}

static int NoFallocate(char** prog) {
  struct sock_filter f[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_fallocate, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EOPNOTSUPP),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog fprog = {sizeof f / sizeof f[0], f};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog) != 0) {
    perror("seccomp");
    return 2;
  }
  execvp(prog[0], prog);
  perror("execvp");
  return 127;
}

/* Allocations made inside the signal handler: glibc's allocator, counted. */
extern void* __libc_malloc(size_t);
extern void* __libc_calloc(size_t, size_t);
extern void* __libc_realloc(void*, size_t);
static volatile sig_atomic_t in_handler, handler_allocs, handler_forks;
void* malloc(size_t n) {
  if (in_handler) handler_allocs = handler_allocs + 1;
  return __libc_malloc(n);
}
void* calloc(size_t n, size_t m) {
  if (in_handler) handler_allocs = handler_allocs + 1;
  return __libc_calloc(n, m);
}
void* realloc(void* p, size_t n) {
  if (in_handler) handler_allocs = handler_allocs + 1;
  return __libc_realloc(p, n);
}

extern pid_t _Fork(void);
static void OnAlarm(int sig) {
  (void)sig;
  int e = errno;
  in_handler = 1;
  pid_t pid = _Fork();
  if (pid == 0) _exit(0);
  if (pid > 0) {
    handler_forks = handler_forks + 1;
    waitpid(pid, NULL, 0);
  }
  in_handler = 0;
  errno = e;
}

static int ForkInHandler(void) {
  signal(SIGALRM, OnAlarm);
  struct itimerval t = {{0, 2000}, {0, 2000}};
  setitimer(ITIMER_REAL, &t, NULL);
  void* keep[64] = {0};
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  unsigned x = 1;
  do {
    for (int i = 0; i < 1000; ++i) {
      x = x * 1103515245u + 12345u;
      int k = (int)(x >> 10) % 64;
      free(keep[k]);
      keep[k] = malloc(16 + (x >> 16) % 4096);
    }
    clock_gettime(CLOCK_MONOTONIC, &now);
  } while ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 < 300 ||
           handler_forks == 0);
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  printf("fork-in-handler: forks=%d allocations_in_handler=%d\n", (int)handler_forks, (int)handler_allocs);
  return handler_forks > 0 && handler_allocs == 0 ? 0 : 1;
}

static void* ForkThread(void* arg) {
  (void)arg;
  pid_t pid = fork(); /* prepares first: the helper waits on the FIFO's data */
  if (pid == 0) _exit(0);
  if (pid > 0) waitpid(pid, NULL, 0);
  return NULL;
}

static void OnWake(int sig) { (void)sig; }

static int ClonedChild(void* arg) {
  close(*(
      int*)arg); /* the parent's writer of the FIFO: the helper must see its end when the parent closes it */
  pid_t pid = fork(); /* the shim's lock, copied while held by a thread this process does not have */
  if (pid == 0) _exit(0);
  if (pid > 0) waitpid(pid, NULL, 0);
  return pid > 0 ? 0 : 1;
}

static int CloneWhilePreparing(const char* fifo) {
  /* A writer held open: the helper's open of the topology returns at once and its read waits for data. The
   * open is the event that says the preparation, and the lock it holds, are under way (inotify). */
  int writer = open(fifo, O_RDWR | O_CLOEXEC);
  int watch = inotify_init1(IN_CLOEXEC);
  if (writer < 0 || watch < 0 || inotify_add_watch(watch, fifo, IN_OPEN) < 0) {
    perror("clone-while-preparing: fifo");
    return 2;
  }
  pthread_t t;
  pthread_create(&t, NULL, ForkThread, NULL);
  struct pollfd opened = {watch, POLLIN, 0};
  if (poll(&opened, 1, 20000) != 1) {
    printf("clone-while-preparing: the helper never opened %s\n", fifo);
    return 1;
  }
  static char stack[256 * 1024];
  pid_t child = clone(ClonedChild, stack + sizeof stack, SIGCHLD, &writer);
  close(writer); /* releases the helper: end of file, the preparation fails at once */
  pthread_join(t, NULL);
  /* The child's end, or 5 s: SIGALRM interrupts the wait (no SA_RESTART). */
  struct sigaction wake;
  memset(&wake, 0, sizeof wake);
  wake.sa_handler = OnWake;
  sigaction(SIGALRM, &wake, NULL);
  alarm(5);
  int status = -1;
  int hung = waitpid(child, &status, 0) != child;
  alarm(0);
  if (hung) {
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
  }
  printf("clone-while-preparing: %s status=%d\n", hung ? "hung" : "done", status);
  return hung || status != 0;
}

/* posix_spawn of prog with standard input the read end of `hold` (report --hold stays alive until this
 * process closes the write end). */
static int SpawnHeld(pid_t* pid, char** prog, int hold[2]) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, hold[0], 0);
  int r = posix_spawn(pid, prog[0], &actions, NULL, prog, environ);
  posix_spawn_file_actions_destroy(&actions);
  return r;
}

static char** small_prog;
static int small_failures;
static char* small_low; /* the thread's stack: lowest address, and how much was painted */
static size_t small_painted;

/* Paints the thread's stack below the caller's frame, so that the most it uses can be read afterwards. */
static __attribute__((noinline)) void PaintStack(void) {
  pthread_attr_t attr;
  void* addr;
  size_t size;
  pthread_getattr_np(pthread_self(), &attr);
  pthread_attr_getstack(&attr, &addr, &size);
  pthread_attr_destroy(&attr);
  char here;
  small_low = addr;
  small_painted = (size_t)(&here - small_low) - 1024; /* this frame and its callees stay clear */
  for (volatile char* p = (volatile char*)small_low; p < (volatile char*)small_low + small_painted; ++p)
    *p = (char)0xa5;
}

static void* SmallStackThread(void* arg) {
  (void)arg;
  PaintStack();
  char** env = RankEnv(0);
  int status;
  pid_t pid;
  small_failures += posix_spawn(&pid, small_prog[0], NULL, NULL, small_prog, env) != 0 ||
                    waitpid(pid, &status, 0) != pid || status != 0;
  pid = fork();
  if (pid == 0) {
    execve(small_prog[0], small_prog, env);
    _exit(127);
  }
  small_failures += pid < 0 || waitpid(pid, &status, 0) != pid || status != 0;
  pid = vfork();
  if (pid == 0) {
    execve(small_prog[0], small_prog, env);
    _exit(127);
  }
  small_failures += pid < 0 || waitpid(pid, &status, 0) != pid || status != 0;
  /* By order: the first stays alive until the second has ended (report --hold), so that the second counts
   * it. */
  int n = 0;
  while (small_prog[n] != NULL) ++n;
  char **first = calloc((size_t)n + 4, sizeof(char*)), **second = calloc((size_t)n + 3, sizeof(char*));
  memcpy(first, small_prog, (size_t)n * sizeof(char*));
  memcpy(second, small_prog, (size_t)n * sizeof(char*));
  first[n] = second[n] = "--env";
  first[n + 1] = second[n + 1] = "numabind-by-order";
  first[n + 2] = "--hold";
  pid_t alive;
  int hold[2];
  small_failures += pipe2(hold, O_CLOEXEC) != 0 || SpawnHeld(&alive, first, hold) != 0;
  small_failures += posix_spawn(&pid, second[0], NULL, NULL, second, environ) != 0 ||
                    waitpid(pid, &status, 0) != pid || status != 0;
  close(hold[1]);
  close(hold[0]);
  small_failures += waitpid(alive, &status, 0) != alive || status != 0;
  return NULL;
}

/* A thread with the smallest stack glibc allows (PTHREAD_STACK_MIN, 16 KiB, its guard page below). */
static int SmallStack(char** prog) {
  small_prog = prog;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 16384);
  pthread_t t;
  if (pthread_create(&t, &attr, SmallStackThread, NULL) != 0) {
    perror("pthread_create");
    return 2;
  }
  pthread_join(t, NULL);
  size_t untouched = 0;
  while (untouched < small_painted && (unsigned char)small_low[untouched] == 0xa5) ++untouched;
  printf("small-stack: failures=%d left=%zu bytes\n", small_failures, untouched);
  return small_failures != 0;
}

static int Burst(int n, char** prog) {
  pid_t pids[64];
  int failures = 0, status, hold[2];
  if (n > 64) n = 64;
  if (pipe2(hold, O_CLOEXEC) != 0) return 2;
  for (int i = 0; i < n; ++i) {
    if (SpawnHeld(&pids[i], prog, hold) != 0) ++failures, pids[i] = 0;
  }
  close(hold[1]); /* all spawned: the workers may end */
  close(hold[0]);
  for (int i = 0; i < n; ++i) {
    if (pids[i] == 0) continue;
    if (waitpid(pids[i], &status, 0) != pids[i]) {
      ++failures;
    } else if (status != 0) { /* said, for the order soak (tests/shim/scripts/order_soak.py) */
      ++failures;
      printf("burst: pid %d %s %d\n", (int)pids[i], WIFSIGNALED(status) ? "signal" : "exit",
             WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    }
  }
  printf("burst: %d spawned, failures=%d\n", n, failures);
  return failures != 0;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: hostile MODE (see the source)\n");
    return 2;
  }
  const char* mode = argv[1];
  int r = 2;
  if (strcmp(mode, "spawn-fail") == 0)
    r = SpawnFail();
  else if (strcmp(mode, "helper-invisible") == 0)
    r = HelperInvisible();
  else if (strcmp(mode, "chdir-fork") == 0 && argc > 2)
    r = ChdirFork(argv[2]);
  else if (strcmp(mode, "seccomp-mempolicy") == 0 && argc > 3)
    r = SeccompMempolicy(argv[2], argv + 3);
  else if (strcmp(mode, "no-fallocate") == 0 && argc > 2)
    r = NoFallocate(argv + 2);
  else if (strcmp(mode, "fork-in-handler") == 0)
    r = ForkInHandler();
  else if (strcmp(mode, "small-stack") == 0 && argc > 2)
    r = SmallStack(argv + 2);
  else if (strcmp(mode, "burst") == 0 && argc > 3)
    r = Burst(atoi(argv[2]), argv + 3);
  else if (strcmp(mode, "clone-while-preparing") == 0 && argc > 2)
    r = CloneWhilePreparing(argv[2]);
  else
    fprintf(stderr, "hostile: unknown mode %s\n", mode);
  fflush(stdout);
  return r;
}
