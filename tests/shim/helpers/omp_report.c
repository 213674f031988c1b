/* omp_report: an OpenMP program for NUMABIND_EXPORT=omp's tests (built with -fopenmp). Prints ONE JSON line:
 *   {"pid":1,"rank":"1","cpus":"0-3","threads":2,"thread_cpus":"0-1|2-3","ran_on":"0,2",
 *    "env":{"OMP_NUM_THREADS":"2","OMP_PLACES":"{0,1},{2,3}",...}}
 * rank: LOCAL_RANK ("" when unset); cpus: the process's affinity at start (sched_getaffinity); threads: the
 * OpenMP team size of one parallel region; thread_cpus: each thread's own affinity (sched_getaffinity of
 * its thread id), in thread order, separated by '|'; ran_on: the CPUs the threads were running on
 * (sched_getcpu), in thread order; env: the OpenMP, device and network variables (null when unset).
 * Options: --out FILE  append the line to FILE (one O_APPEND write) instead of stdout. */
#include <fcntl.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define kMaxThreads 1024

static const char* const kVars[] = {"OMP_NUM_THREADS",      "OMP_PLACES",           "OMP_PROC_BIND",
                                    "CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "NCCL_IB_HCA",
                                    "UCX_NET_DEVICES",      "NUMABIND_BOUND"};

/* Appends set as a Linux list ("0-3,8") to out. */
static void AppendList(char* out, size_t cap, const cpu_set_t* set) {
  size_t n = strlen(out);
  int first = 1;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (!CPU_ISSET(c, set)) continue;
    int e = c;
    while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set)) ++e;
    n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, first ? "%d" : ",%d", c);
    if (e > c) n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "-%d", e);
    first = 0;
    c = e;
  }
}

/* Appends s as a JSON string (or null). */
static void AppendJson(char* out, size_t cap, const char* s) {
  size_t n = strlen(out);
  if (s == NULL) {
    snprintf(out + n, cap - n, "null");
    return;
  }
  if (n + 1 < cap) out[n++] = '"';
  for (; *s != '\0' && n + 8 < cap; ++s) {
    if (*s == '"' || *s == '\\') out[n++] = '\\';
    out[n++] = (*s >= ' ' && *s != 0x7f) ? *s : '?';
  }
  out[n++] = '"';
  out[n] = '\0';
}

int main(int argc, char** argv) {
  const char* out_path = NULL;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) out_path = argv[++i];
  }
  static cpu_set_t thread_sets[kMaxThreads];
  static int ran_on[kMaxThreads];
  cpu_set_t process;
  sched_getaffinity(0, sizeof process, &process);
  int team = 0;
#pragma omp parallel
  {
    int t = omp_get_thread_num();
#pragma omp single
    team = omp_get_num_threads();
    if (t < kMaxThreads) {
      /* A little work, so that every thread has been scheduled once it reports. */
      volatile double x = 0;
      for (int i = 0; i < 2000000; ++i) x += i * 0.5;
      sched_getaffinity((pid_t)syscall(SYS_gettid), sizeof thread_sets[t], &thread_sets[t]);
      ran_on[t] = sched_getcpu();
    }
  }
  static char line[1 << 20];
  const char* rank = getenv("LOCAL_RANK");
  snprintf(line, sizeof line, "{\"pid\":%d,\"rank\":", (int)getpid());
  AppendJson(line, sizeof line, rank ? rank : "");
  strcat(line, ",\"cpus\":\"");
  AppendList(line, sizeof line, &process);
  snprintf(line + strlen(line), sizeof line - strlen(line), "\",\"threads\":%d,\"thread_cpus\":\"", team);
  for (int t = 0; t < team && t < kMaxThreads; ++t) {
    if (t > 0) strcat(line, "|");
    AppendList(line, sizeof line, &thread_sets[t]);
  }
  strcat(line, "\",\"ran_on\":\"");
  for (int t = 0; t < team && t < kMaxThreads; ++t)
    snprintf(line + strlen(line), sizeof line - strlen(line), t > 0 ? ",%d" : "%d", ran_on[t]);
  strcat(line, "\",\"env\":{");
  for (size_t i = 0; i < sizeof kVars / sizeof kVars[0]; ++i) {
    snprintf(line + strlen(line), sizeof line - strlen(line), "%s\"%s\":", i > 0 ? "," : "", kVars[i]);
    AppendJson(line, sizeof line, getenv(kVars[i]));
  }
  strcat(line, "}}\n");
  if (out_path == NULL) {
    fputs(line, stdout);
    return 0;
  }
  int fd = open(out_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0 || write(fd, line, strlen(line)) != (ssize_t)strlen(line)) return 2;
  close(fd);
  return 0;
}
