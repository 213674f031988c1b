#include "tests/shim/launch_util.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>

extern char** environ;

namespace numabind::shim::test {
namespace {

// Variables a test's children must not inherit from whatever ran the tests (a preload, the shim's settings,
// or a launcher's rank variables and Slurm's job variables when the suite itself runs inside one).
bool Scrubbed(const std::string& entry) {
  static const char* const kNames[] = {"LD_PRELOAD",
                                       "LOCAL_RANK",
                                       "LOCAL_WORLD_SIZE",
                                       "OMPI_COMM_WORLD_LOCAL_RANK",
                                       "OMPI_COMM_WORLD_LOCAL_SIZE",
                                       "MPI_LOCALRANKID",
                                       "MPI_LOCALNRANKS",
                                       "PMI_LOCAL_RANK",
                                       "PMI_LOCAL_SIZE",
                                       "PALS_LOCAL_RANKID",
                                       "MV2_COMM_WORLD_LOCAL_RANK",
                                       "JSM_NAMESPACE_LOCAL_RANK",
                                       "FLUX_TASK_LOCAL_ID",
                                       "MPT_LRANK",
                                       "SLURM_LOCALID",
                                       "NB_TEST_RANK"};
  std::string name = entry.substr(0, entry.find('='));
  if (name.rfind("NUMABIND_", 0) == 0 || name.rfind("SLURM_", 0) == 0) return true;
  for (const char* n : kNames)
    if (name == n) return true;
  return false;
}

double Now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

}  // namespace

RunResult Run(const std::vector<std::string>& argv, const std::vector<std::string>& env,
              const std::string& output_path, int timeout_s) {
  RunResult result;
  std::vector<std::string> envs;
  for (char** e = environ; *e; e++)
    if (!Scrubbed(*e)) envs.push_back(*e);
  // The library's shared plan basis goes to the build directory, not /dev/shm: a test run leaves nothing
  // behind. A test's own NUMABIND_SHARED replaces it.
  std::string shared = BuildDir() + "/test-shared";
  mkdir(shared.c_str(), 0755);
  envs.push_back("NUMABIND_SHARED=" + shared);
  for (const std::string& add : env) {
    std::string prefix = add.substr(0, add.find('=') + 1);
    for (auto it = envs.begin(); it != envs.end();) it = it->rfind(prefix, 0) == 0 ? envs.erase(it) : it + 1;
    envs.push_back(add);
  }
  std::vector<char*> cargv, cenv;
  for (const std::string& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  for (const std::string& e : envs) cenv.push_back(const_cast<char*>(e.c_str()));
  cenv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, output_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawnattr_init(&attr);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  double start = Now();
  pid_t pid;
  int rc = posix_spawnp(&pid, cargv[0], &actions, &attr, cargv.data(), cenv.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    result.error = std::string("posix_spawnp ") + argv[0] + ": " + strerror(rc);
    return result;
  }
  result.started = true;
  int status = 0;
  // The child's end is the event: its pidfd polls readable then; the timeout only bounds the wait. Linux
  // before 5.3 has no pidfd_open: then the poll has nothing to watch and looks again every 10 ms.
  int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  for (;;) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) break;
    double left = timeout_s - (Now() - start);
    if (left <= 0) {
      result.timed_out = true;
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    pollfd end = {pidfd, POLLIN, 0};
    poll(&end, pidfd >= 0 ? 1 : 0, pidfd >= 0 ? static_cast<int>(left * 1000) + 1 : 10);
  }
  if (pidfd >= 0) close(pidfd);
  result.seconds = Now() - start;
  kill(-pid, SIGKILL);  // stragglers in its group (a launcher that left a worker behind)
  if (WIFEXITED(status))
    result.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    result.exit_code = 128 + WTERMSIG(status);
  return result;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> LinesWith(const std::string& text, const std::string& needle) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.find(needle) != std::string::npos) lines.push_back(line);
  return lines;
}

std::map<long, int> RanksByPid(const std::string& log, const std::string& what) {
  std::map<long, int> out;
  for (const std::string& line : LinesWith(log, what)) {
    size_t p = line.find(what), q = line.rfind(" pid ");
    if (p != std::string::npos && q != std::string::npos)
      out[atol(line.c_str() + q + 5)] = atoi(line.c_str() + p + what.size());
  }
  return out;
}

std::map<long, std::string> WorkerEntries(const std::string& dir) {
  std::map<long, std::string> entries;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return entries;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::string text = ReadFile(dir + "/" + e->d_name);
    entries[atol(e->d_name)] = text.substr(0, text.find('\n'));
  }
  closedir(d);
  return entries;
}

std::string Tail(const std::string& text, size_t max_chars) {
  return text.size() <= max_chars ? text : "..." + text.substr(text.size() - max_chars);
}

std::string Report::Get(const std::string& key) const {
  auto it = fields.find(key);
  return it == fields.end() ? "" : it->second;
}

bool ParseReport(const std::string& line, Report* out, std::string* err) {
  out->line = line;
  out->fields.clear();
  size_t i = 0, n = line.size();
  auto skip = [&] {
    while (i < n && isspace(static_cast<unsigned char>(line[i]))) i++;
  };
  auto fail = [&](const char* why) {
    *err = std::string(why) + " at column " + std::to_string(i);
    return false;
  };
  auto string = [&](std::string* s) {  // at the opening quote
    for (i++; i < n && line[i] != '"'; i++) {
      if (line[i] != '\\') {
        s->push_back(line[i]);
        continue;
      }
      if (++i >= n) return false;
      char c = line[i];
      if (c == 'n')
        s->push_back('\n');
      else if (c == 't')
        s->push_back('\t');
      else if (c == 'u' && i + 4 < n) {  // \u00XX: the reporters escape control characters only
        s->push_back(static_cast<char>(strtol(line.substr(i + 1, 4).c_str(), nullptr, 16)));
        i += 4;
      } else
        s->push_back(c);
    }
    if (i >= n) return false;
    i++;
    return true;
  };
  skip();
  if (i >= n || line[i] != '{') return fail("expected {");
  i++;
  for (;;) {
    skip();
    if (i < n && line[i] == '}') return true;
    std::string key, value;
    if (i >= n || line[i] != '"' || !string(&key)) return fail("expected a key");
    skip();
    if (i >= n || line[i] != ':') return fail("expected :");
    i++;
    skip();
    if (i < n && line[i] == '"') {
      if (!string(&value)) return fail("unterminated string");
    } else {
      size_t begin = i;
      int depth = 0;
      bool in_string = false;
      for (; i < n; i++) {
        char c = line[i];
        if (in_string) {
          if (c == '\\')
            i++;
          else if (c == '"')
            in_string = false;
          continue;
        }
        if (c == '"')
          in_string = true;
        else if (c == '{' || c == '[')
          depth++;
        else if ((c == '}' || c == ']') && depth > 0)
          depth--;
        else if ((c == ',' || c == '}') && depth == 0)
          break;
      }
      value = line.substr(begin, i - begin);
      while (!value.empty() && isspace(static_cast<unsigned char>(value.back()))) value.pop_back();
    }
    out->fields[key] = value;
    skip();
    if (i < n && line[i] == ',') {
      i++;
      continue;
    }
    if (i < n && line[i] == '}') return true;
    return fail("expected , or }");
  }
}

std::vector<Report> ReadReports(const std::string& path) {
  std::vector<Report> reports;
  std::istringstream in(ReadFile(path));
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    Report r;
    std::string err;
    if (!ParseReport(line, &r, &err)) r.fields.clear();
    reports.push_back(r);
  }
  return reports;
}

std::string Absolute(const std::string& path) {
  char cwd[PATH_MAX];
  if (!path.empty() && path[0] == '/') return path;
  return std::string(getcwd(cwd, sizeof cwd) != nullptr ? cwd : ".") + "/" + path;
}

std::string BuildDir() {
  const char* build = getenv("BUILD");
  if (build != nullptr && *build != '\0') return Absolute(build);
  char exe[PATH_MAX];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len <= 0) return "build";
  std::string path(exe, static_cast<size_t>(len));
  path = path.substr(0, path.rfind('/'));  // $BUILD/tests
  return path.substr(0, path.rfind('/'));
}

std::string RepoDir() {
  struct stat st;
  char cwd[PATH_MAX];
  if (getcwd(cwd, sizeof cwd) && stat((std::string(cwd) + "/tests/shim/scripts").c_str(), &st) == 0)
    return cwd;
  return BuildDir() + "/..";
}

std::string MakeTempDir(const std::string& prefix) {
  const char* tmp = getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/" + prefix + "-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back(0);
  return mkdtemp(buf.data()) ? std::string(buf.data()) : std::string();
}

void RemoveTree(const std::string& path) {
  if (path.empty()) return;
  nftw(
      path.c_str(), [](const char* p, const struct stat*, int, struct FTW*) { return remove(p); }, 16,
      FTW_DEPTH | FTW_PHYS);
}

std::vector<int> AllowedCpus() {
  std::vector<int> cpus;
  for (int n = 1024; n <= (1 << 20); n *= 2) {
    cpu_set_t* set = CPU_ALLOC(n);
    size_t size = CPU_ALLOC_SIZE(n);
    if (sched_getaffinity(0, size, set) == 0) {
      for (int c = 0; c < n; c++)
        if (CPU_ISSET_S(c, size, set)) cpus.push_back(c);
      CPU_FREE(set);
      break;
    }
    CPU_FREE(set);
    if (errno != EINVAL) break;
  }
  return cpus;
}

std::string FormatCpuList(const std::vector<int>& cpus) {
  std::string s;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) j++;
    if (!s.empty()) s += ",";
    s += std::to_string(cpus[i]);
    if (j > i) s += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return s;
}

CpuPair TwoAllowedCpus() {
  std::vector<int> cpus = AllowedCpus();
  cr_assert(cpus.size() >= 2, "the shim's tests need 2 CPUs to tell ranks apart; this process may use %s",
            FormatCpuList(cpus).c_str());
  CpuPair p;
  p.first = std::to_string(cpus[0]);
  p.second = std::to_string(cpus[1]);
  p.all = FormatCpuList(cpus);
  for (int c : cpus) p.commas += (p.commas.empty() ? "" : ",") + std::to_string(c);
  p.policy = "cpus:" + p.second + "|" + p.first;
  return p;
}

PreloadedRun RunPreloaded(std::vector<std::string> argv, const std::vector<std::string>& env,
                          const std::string& tag) {
  std::string dir = MakeTempDir(tag);
  for (std::string& a : argv) {
    if (a == "@OUT") a = dir + "/reports";
    if (a == "@REPORT") a = BuildDir() + "/helpers/report";
  }
  std::vector<std::string> all = {"LD_PRELOAD=" + BuildDir() + "/libnumabind.so", "NUMABIND_LOG=info",
                                  "NUMABIND_LOG_FILE=" + dir + "/log"};
  all.insert(all.end(), env.begin(), env.end());
  PreloadedRun o;
  o.run = Run(argv, all, dir + "/output", 60);
  o.reports = ReadReports(dir + "/reports");
  o.log = ReadFile(dir + "/log");
  o.output = ReadFile(dir + "/output");
  RemoveTree(dir);
  return o;
}

std::string EnvOf(const Report& r, const std::string& name) {
  std::string env = r.Get("env");
  size_t at = env.find("\"" + name + "\":");
  if (at == std::string::npos) return "(missing)";
  at += name.size() + 3;
  size_t end = env[at] == '"' ? env.find('"', at + 1) + 1 : env.find_first_of(",}", at);
  return env.substr(at, end - at);
}

}  // namespace numabind::shim::test
