/* thread_report: a rank whose linked library (libearly_thread.so) started a thread in its constructor,
 * before libnumabind's ran. Prints ONE JSON line: {"threads":2,"early":1,"cpus":"0","thread_cpus":"0;0"}:
 * cpus is the main thread's sched_getaffinity; thread_cpus the Cpus_allowed_list of every thread
 * (/proc/self/task/STATUS, ';' between threads, in directory order). Options: --out FILE appends the line
 * to FILE instead of stdout. */
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int early_thread_started(void);

/* The value of "Cpus_allowed_list:" in a status file, into out. */
static void AllowedList(const char* path, char* out, size_t cap) {
  snprintf(out, cap, "?");
  FILE* f = fopen(path, "r");
  if (f == NULL) return;
  char line[4096];
  while (fgets(line, sizeof line, f) != NULL) {
    if (strncmp(line, "Cpus_allowed_list:", 18) != 0) continue;
    char* v = line + 18;
    while (*v == ' ' || *v == '\t') v++;
    v[strcspn(v, "\n")] = '\0';
    snprintf(out, cap, "%s", v);
  }
  fclose(f);
}

int main(int argc, char** argv) {
  const char* out_path = argc == 3 && strcmp(argv[1], "--out") == 0 ? argv[2] : NULL;
  char main_cpus[4096];
  AllowedList("/proc/thread-self/status", main_cpus, sizeof main_cpus);
  char all[16384] = "";
  size_t len = 0;
  int threads = 0;
  DIR* d = opendir("/proc/self/task");
  struct dirent* e;
  while (d != NULL && (e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    char path[320], cpus[4096];
    snprintf(path, sizeof path, "/proc/self/task/%s/status", e->d_name);
    AllowedList(path, cpus, sizeof cpus);
    int n = snprintf(all + len, sizeof all - len, "%s%s", threads > 0 ? ";" : "", cpus);
    if (n > 0 && (size_t)n < sizeof all - len) len += (size_t)n;
    threads++;
  }
  if (d != NULL) closedir(d);
  char report[20480];
  int n = snprintf(report, sizeof report,
                   "{\"threads\":%d,\"early\":%d,\"cpus\":\"%s\",\"thread_cpus\":\"%s\"}\n", threads,
                   early_thread_started(), main_cpus, all);
  int fd = out_path ? open(out_path, O_WRONLY | O_APPEND | O_CREAT, 0644) : 1;
  if (fd < 0 || n <= 0 || write(fd, report, (size_t)n) != n) return 1;
  return 0;
}
