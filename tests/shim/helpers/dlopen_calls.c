/* dlopen_calls: loads the library with dlopen (not preloaded: nothing after it in the lookup order) and
 * calls each wrapper it exports through dlsym, checking that each does what the C library's does.
 *   dlopen_calls LIBRARY local|global
 * Prints one line per call ("ok fork", "FAIL system: ...") and exits 0 when every call passed. */
#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;
static int failures;

static void Check(const char* what, int ok, const char* detail) {
  if (ok) {
    printf("ok %s\n", what);
  } else {
    printf("FAIL %s: %s\n", what, detail);
    failures++;
  }
  fflush(stdout);
}

static int ExitOf(pid_t pid) {
  int status = 0;
  if (pid <= 0 || waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  void* h = dlopen(argv[1], RTLD_NOW | (strcmp(argv[2], "global") == 0 ? RTLD_GLOBAL : RTLD_LOCAL));
  if (h == NULL) {
    printf("FAIL dlopen: %s\n", dlerror());
    return 1;
  }
  char detail[128];
  pid_t (*fork_)(void) = (pid_t(*)(void))dlsym(h, "fork");
  pid_t p = fork_ ? fork_() : -2;
  if (p == 0) _exit(7);
  snprintf(detail, sizeof detail, "returned %d, errno %d", (int)p, errno);
  Check("fork", p > 0 && ExitOf(p) == 7, detail);

  pid_t (*fork2)(void) = (pid_t(*)(void))dlsym(h, "_Fork");
  p = fork2 ? fork2() : -2;
  if (p == 0) _exit(8);
  snprintf(detail, sizeof detail, "returned %d, errno %d", (int)p, errno);
  Check("_Fork", p > 0 && ExitOf(p) == 8, detail);

  int (*spawn)(pid_t*, const char*, const posix_spawn_file_actions_t*, const posix_spawnattr_t*,
               char* const[], char* const[]) = dlsym(h, "posix_spawn");
  char* args[] = {"sh", "-c", "exit 5", NULL};
  pid_t child = 0;
  int r = spawn ? spawn(&child, "/bin/sh", NULL, NULL, args, environ) : -2;
  snprintf(detail, sizeof detail, "returned %d", r);
  Check("posix_spawn", r == 0 && ExitOf(child) == 5, detail);

  int (*spawnp)(pid_t*, const char*, const posix_spawn_file_actions_t*, const posix_spawnattr_t*,
                char* const[], char* const[]) = dlsym(h, "posix_spawnp");
  r = spawnp ? spawnp(&child, "sh", NULL, NULL, args, environ) : -2;
  snprintf(detail, sizeof detail, "returned %d", r);
  Check("posix_spawnp", r == 0 && ExitOf(child) == 5, detail);

  int (*system_)(const char*) = dlsym(h, "system");
  r = system_ ? system_("exit 3") : -2;
  snprintf(detail, sizeof detail, "returned %d", r);
  Check("system", WIFEXITED(r) && WEXITSTATUS(r) == 3, detail);

  FILE* (*popen_)(const char*, const char*) = dlsym(h, "popen");
  FILE* f = popen_ ? popen_("echo hi", "r") : NULL;
  char line[16] = "";
  if (f != NULL && fgets(line, sizeof line, f) == NULL) line[0] = '\0';
  if (f != NULL) pclose(f);
  Check("popen", strcmp(line, "hi\n") == 0, f == NULL ? "returned NULL" : line);

  int (*execve_)(const char*, char* const[], char* const[]) = dlsym(h, "execve");
  p = fork();
  if (p == 0) {
    char* t[] = {"sh", "-c", "exit 4", NULL};
    execve_(execve_ ? "/bin/sh" : "", t, environ);
    _exit(99);
  }
  Check("execve", ExitOf(p) == 4, "the exec failed");

  pid_t (*vfork_)(void) = (pid_t(*)(void))dlsym(h, "vfork");
  p = vfork_ ? vfork_() : -2;
  if (p == 0) _exit(6);
  snprintf(detail, sizeof detail, "returned %d", (int)p);
  Check("vfork", p > 0 && ExitOf(p) == 6, detail);

  int (*setenv_)(const char*, const char*, int) = dlsym(h, "setenv");
  r = setenv_ ? setenv_("NB_DLOPEN_TEST", "1", 1) : -2;
  Check("setenv", r == 0 && getenv("NB_DLOPEN_TEST") != NULL, "not set");
  int (*putenv_)(char*) = dlsym(h, "putenv");
  static char entry[] = "NB_DLOPEN_PUT=2";
  r = putenv_ ? putenv_(entry) : -2;
  Check("putenv", r == 0 && getenv("NB_DLOPEN_PUT") != NULL, "not set");

  int (*setaff)(pid_t, size_t, const cpu_set_t*) = dlsym(h, "sched_setaffinity");
  cpu_set_t set;
  sched_getaffinity(0, sizeof set, &set);
  r = setaff ? setaff(0, sizeof set, &set) : -2;
  snprintf(detail, sizeof detail, "returned %d, errno %d", r, errno);
  Check("sched_setaffinity", r == 0, detail);
  return failures == 0 ? 0 : 1;
}
