/* widen: a rank whose code widens its own affinity, for the guard's tests (NUMABIND_GUARD). It calls
 * sched_setaffinity(0, MASK) on itself and pthread_setaffinity_np(T, MASK) on a second thread T, then prints
 * one line per call with what it returned and where the thread is now:
 *   start cpus=2-3
 *   main rc=0 errno=0 cpus=2-3
 *   thread rc=0 cpus=2-3
 *   other rc=0 errno=0 cpus=0-15        (with --other)
 * MASK is the whole machine (CPUs 0 to the number configured - 1) unless --cpus LIST says otherwise.
 * Options: --start LIST  first narrow itself to LIST with the raw system call (which nothing preloaded sees),
 *                        so that a widening shows in a process no launcher bound
 *          --cpus LIST   the mask to ask for (Linux list syntax: 0-3,8)
 *          --other       also fork a child (a process of its own) and widen it with sched_setaffinity(PID)
 *          --pid PID     also ask for MASK for PID (a process or thread that may not exist), printing
 *                        "pid rc=-1 errno=3": the guard must answer as the C library does
 *          --worker VAR=VALUE  do all this in a forked worker that first sets VAR (setenv), as torchrun's
 *                        fork start method makes a rank; the launcher waits for it and exits as it did
 *          --out FILE    append the lines to FILE (one write) instead of stdout */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

enum { kMaxCpus = 8192 };

static char out[16384];
static size_t out_len;

static void Say(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
static void Say(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(out + out_len, sizeof(out) - out_len, fmt, ap);
  va_end(ap);
  if (n > 0) out_len += (size_t)n < sizeof(out) - out_len ? (size_t)n : sizeof(out) - out_len - 1;
}

static int ParseList(const char* s, cpu_set_t* set, size_t size) {
  CPU_ZERO_S(size, set);
  while (*s != '\0') {
    char* end;
    long a = strtol(s, &end, 10), b = a;
    if (end == s || a < 0 || a >= kMaxCpus) return 0;
    if (*end == '-') {
      s = end + 1;
      b = strtol(s, &end, 10);
      if (end == s || b < a || b >= kMaxCpus) return 0;
    }
    for (long c = a; c <= b; ++c) CPU_SET_S((size_t)c, size, set);
    if (*end == ',')
      ++end;
    else if (*end != '\0')
      return 0;
    s = end;
  }
  return 1;
}

/* Appends set in list syntax ("none" when empty). */
static void SayList(const cpu_set_t* set, size_t size) {
  int first = 1;
  for (int c = 0; c < kMaxCpus; ++c) {
    if (!CPU_ISSET_S((size_t)c, size, set)) continue;
    int e = c;
    while (e + 1 < kMaxCpus && CPU_ISSET_S((size_t)e + 1, size, set)) ++e;
    Say(first ? "%d" : ",%d", c);
    if (e > c) Say("-%d", e);
    first = 0;
    c = e;
  }
  if (first) Say("none");
}

static void SayAffinity(pid_t pid, size_t size) {
  cpu_set_t* now = CPU_ALLOC(kMaxCpus);
  if (syscall(SYS_sched_getaffinity, pid, size, now) < 0) CPU_ZERO_S(size, now);
  SayList(now, size);
  CPU_FREE(now);
}

static void* Park(void* arg) {
  (void)arg;
  pause();
  return NULL;
}

int main(int argc, char** argv) {
  size_t size = CPU_ALLOC_SIZE(kMaxCpus);
  cpu_set_t* mask = CPU_ALLOC(kMaxCpus);
  cpu_set_t* start = CPU_ALLOC(kMaxCpus);
  const char* out_path = NULL;
  int other = 0;
  char* worker = NULL;
  long pid_arg = 0;
  int pid_given = 0;
  CPU_ZERO_S(size, mask);
  for (int c = 0; c < get_nprocs_conf() && c < kMaxCpus; ++c) CPU_SET_S((size_t)c, size, mask);
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--start") == 0 && i + 1 < argc) {
      if (!ParseList(argv[++i], start, size)) return fprintf(stderr, "widen: bad --start\n"), 2;
      if (syscall(SYS_sched_setaffinity, 0, size, start) != 0) return perror("widen: --start"), 2;
    } else if (strcmp(argv[i], "--cpus") == 0 && i + 1 < argc) {
      if (!ParseList(argv[++i], mask, size)) return fprintf(stderr, "widen: bad --cpus\n"), 2;
    } else if (strcmp(argv[i], "--other") == 0) {
      other = 1;
    } else if (strcmp(argv[i], "--pid") == 0 && i + 1 < argc) {
      pid_arg = strtol(argv[++i], NULL, 10);
      pid_given = 1;
    } else if (strcmp(argv[i], "--worker") == 0 && i + 1 < argc && strchr(argv[i + 1], '=') != NULL) {
      worker = argv[++i];
    } else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
      out_path = argv[++i];
    } else {
      fprintf(stderr,
              "usage: widen [--start LIST] [--cpus LIST] [--other] [--pid PID] [--worker VAR=VALUE] [--out "
              "FILE]\n");
      return 2;
    }
  }
  if (worker != NULL) {
    pid_t pid = fork();
    if (pid < 0) return perror("widen: fork"), 2;
    if (pid > 0) {
      int status = 0;
      waitpid(pid, &status, 0);
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    *strchr(worker, '=') = '\0';
    setenv(worker, worker + strlen(worker) + 1, 1);
  }
  Say("start cpus=");
  SayAffinity(0, size);
  pthread_t t;
  if (pthread_create(&t, NULL, Park, NULL) != 0) return perror("widen: pthread_create"), 2;
  errno = 0;
  int rc = sched_setaffinity(0, size, mask);
  Say("\nmain rc=%d errno=%d cpus=", rc, rc == 0 ? 0 : errno);
  SayAffinity(0, size);
  rc = pthread_setaffinity_np(t, size, mask);
  cpu_set_t* now = CPU_ALLOC(kMaxCpus);
  if (pthread_getaffinity_np(t, size, now) != 0) CPU_ZERO_S(size, now);
  Say("\nthread rc=%d cpus=", rc);
  SayList(now, size);
  if (other) {
    pid_t child = fork();
    if (child == 0) {
      pause();
      _exit(0);
    }
    errno = 0;
    rc = child > 0 ? sched_setaffinity(child, size, mask) : -1;
    Say("\nother rc=%d errno=%d cpus=", rc, rc == 0 ? 0 : errno);
    SayAffinity(child, size);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
  }
  if (pid_given) {
    errno = 0;
    rc = sched_setaffinity((pid_t)pid_arg, size, mask);
    Say("\npid rc=%d errno=%d", rc, rc == 0 ? 0 : errno);
  }
  Say("\n");
  int fd = out_path ? open(out_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644) : 1;
  if (fd < 0 || write(fd, out, out_len) != (ssize_t)out_len) return perror("widen: write"), 1;
  return 0;
}
