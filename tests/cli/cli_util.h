// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Runs build/numabind (or any program) as a child and captures what it prints. The build folder comes from
// the environment variable BUILD (the Makefile passes it to scripts/run-tests.sh), default "build". The
// child's environment is the test's own without any NUMABIND_* variable, plus what the test adds.

#ifndef NUMABIND_TESTS_CLI_CLI_UTIL_H_
#define NUMABIND_TESTS_CLI_CLI_UTIL_H_

#include <criterion/criterion.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

/// Checks that `text` contains `part`, and shows both when it does not.
#define EXPECT_CONTAINS(text, part)                                                                 \
  do {                                                                                              \
    const std::string text_ = (text), part_ = (part);                                               \
    cr_expect(text_.find(part_) != std::string::npos, "%s lacks \"%s\":\n%s", #text, part_.c_str(), \
              text_.c_str());                                                                       \
  } while (0)

/// Compares two strings of any kind (temporaries included: Criterion's cr_assert_str_eq keeps pointers past
/// the end of the full expression) and shows both when they differ.
#define EXPECT_STREQ(actual, expected)                                                              \
  do {                                                                                              \
    const std::string actual_ = (actual), expected_ = (expected);                                   \
    cr_assert(actual_ == expected_, "%s\n  actual:   %s\n  expected: %s", #actual, actual_.c_str(), \
              expected_.c_str());                                                                   \
  } while (0)

namespace numabind::test {

struct Result {
  int status = -1;  ///< exit status, or 128 + signal
  std::string out, err;
};

/// $BUILD, else the build directory this test binary lives in ($BUILD/tests/cli_test).
inline std::string BuildDir() {
  const char* b = getenv("BUILD");
  if (b != nullptr && *b != '\0') return b;
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return "build";
  std::string path(self, static_cast<size_t>(n));
  return path.substr(0, path.rfind('/', path.rfind('/') - 1));
}

inline std::string Numabind() { return BuildDir() + "/numabind"; }

/// The first two CPUs this process may use.
inline std::vector<int> TwoCpus() {
  cpu_set_t set;
  cr_assert_eq(sched_getaffinity(0, sizeof(set), &set), 0);
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE && cpus.size() < 2; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  cr_assert_eq(cpus.size(), 2u, "the test needs 2 allowed CPUs");
  return cpus;
}

/// The first two CPUs this process may use, as "cpus:SECOND|FIRST" (the reverse of any default).
inline std::string TwoCpuPolicy() {
  std::vector<int> cpus = TwoCpus();
  return "cpus:" + std::to_string(cpus[1]) + "|" + std::to_string(cpus[0]);
}

inline std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void WriteAll(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

inline std::vector<std::string>& TempDirs() {
  static std::vector<std::string> dirs;
  return dirs;
}

/// A fresh directory under /tmp, removed by RemoveTempDirs (a suite's .fini).
inline std::string TempDir() {
  char tmpl[] = "/tmp/numabind-cli-test.XXXXXX";
  char* d = mkdtemp(tmpl);
  cr_assert_not_null(d, "mkdtemp");
  TempDirs().push_back(d);
  return d;
}

inline int RemoveEntry(const char* path, const struct stat*, int, struct FTW*) { return remove(path); }

inline void RemoveTempDirs() {
  for (const std::string& d : TempDirs()) nftw(d.c_str(), RemoveEntry, 16, FTW_DEPTH | FTW_PHYS);
  TempDirs().clear();
}

/// Runs `argv` (argv[0] is a path or a name looked up in PATH) with the test's environment less NUMABIND_*
/// variables, with NUMABIND_SHARED=$BUILD/test-shared (a preloaded library's shared plan basis stays out of
/// /dev/shm), plus `env_add` ("NAME=value", replacing an entry of the same name, or "NAME" alone to remove).
inline Result RunProgram(const std::vector<std::string>& argv, const std::vector<std::string>& env_add = {}) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (strncmp(*e, "NUMABIND_", 9) == 0) continue;
    env.emplace_back(*e);
  }
  std::string shared = BuildDir() + "/test-shared";
  mkdir(shared.c_str(), 0755);
  env.push_back("NUMABIND_SHARED=" + shared);
  for (const std::string& add : env_add) {
    std::string name = add.substr(0, add.find('='));
    for (size_t i = 0; i < env.size();) {
      if (env[i].compare(0, name.size() + 1, name + "=") == 0) {
        env.erase(env.begin() + static_cast<long>(i));
      } else {
        ++i;
      }
    }
    if (add.find('=') != std::string::npos) env.push_back(add);
  }
  std::vector<char*> envp, args;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& a : argv_copy) args.push_back(a.data());
  args.push_back(nullptr);

  char out_path[] = "/tmp/numabind-cli-out.XXXXXX";
  char err_path[] = "/tmp/numabind-cli-err.XXXXXX";
  int out_fd = mkostemp(out_path, O_CLOEXEC);
  int err_fd = mkostemp(err_path, O_CLOEXEC);
  cr_assert(out_fd >= 0 && err_fd >= 0, "mkstemp");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
  posix_spawn_file_actions_adddup2(&actions, err_fd, 2);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  cr_assert_eq(rc, 0, "cannot start %s: %s", args[0], strerror(rc));
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0) {
  }
  close(out_fd);
  close(err_fd);
  Result r;
  r.status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
  r.out = ReadAll(out_path);
  r.err = ReadAll(err_path);
  unlink(out_path);
  unlink(err_path);
  return r;
}

/// Runs build/numabind with these arguments.
inline Result Run(const std::vector<std::string>& args, const std::vector<std::string>& env_add = {}) {
  std::string bin = Numabind();
  cr_assert_eq(access(bin.c_str(), X_OK), 0, "%s is not built (BUILD=%s)", bin.c_str(), BuildDir().c_str());
  std::vector<std::string> argv = {bin};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProgram(argv, env_add);
}

inline int CountLines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

/// A command line no terminal should see raw: CSI (ESC [), an OSC that sets the window title, BEL, DEL and
/// CSI as C1 in UTF-8 (0xc2 0x9b). `exec -a` lets any user give a process such an argv[0].
inline const char kEscapes[] =
    "\x1b[31mred\x1b]0;pwned\x07\x7f\xc2\x9b"
    "2J";

/// The first byte of `out` that a terminal takes as a control (C0 but newline, DEL, C1 in UTF-8), or
/// std::string::npos.
inline size_t FirstControl(const std::string& out) {
  for (size_t i = 0; i < out.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(out[i]);
    unsigned char next = i + 1 < out.size() ? static_cast<unsigned char>(out[i + 1]) : 0;
    if ((c < 0x20 && c != '\n') || c == 0x7f || (c == 0xc2 && next >= 0x80 && next < 0xa0)) return i;
  }
  return std::string::npos;
}

/// The line of /proc/self/status that starts with `field:`, value only.
inline std::string StatusField(const char* field) {
  std::string status = ReadAll("/proc/self/status");
  std::string key = std::string("\n") + field + ":";
  size_t pos = status.find(key);
  if (pos == std::string::npos) return "";
  pos += key.size();
  while (status[pos] == ' ' || status[pos] == '\t') ++pos;
  return status.substr(pos, status.find('\n', pos) - pos);
}

}  // namespace numabind::test

#endif  // NUMABIND_TESTS_CLI_CLI_UTIL_H_
