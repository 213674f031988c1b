// Helpers for the shim's tests, which run real launchers and helper programs as child processes (the test
// binary itself is never preloaded) and read what the ranks report. Shared by every tests/shim/*_test.cc.
#ifndef NUMABIND_TESTS_SHIM_LAUNCH_UTIL_H_
#define NUMABIND_TESTS_SHIM_LAUNCH_UTIL_H_

#include <map>
#include <string>
#include <vector>

namespace numabind::shim::test {

struct RunResult {
  bool started = false;    // posix_spawn succeeded
  bool timed_out = false;  // killed (with its whole process group) after the timeout
  int exit_code = -1;      // exit status, or 128 + signal number when killed by a signal
  double seconds = 0;      // wall time from spawn to exit
  std::string error;       // why it did not start
};

/// Runs argv (argv[0] a path, or a name looked up in PATH) in a process group of its own, with stdin from
/// /dev/null and stdout + stderr to output_path (truncated). Its environment is the test's own, without
/// LD_PRELOAD, NUMABIND_*, SLURM_* and the launchers' rank variables (so runs are hermetic), with
/// NUMABIND_SHARED=$BUILD/test-shared (nothing left in /dev/shm), plus `env` entries ("NAME=value" adds or
/// replaces NAME). After timeout_s seconds the whole group is killed. Any process left in the group after
/// the command exits is killed too.
RunResult Run(const std::vector<std::string>& argv, const std::vector<std::string>& env,
              const std::string& output_path, int timeout_s);

/// The whole file, or "" when it cannot be read.
std::string ReadFile(const std::string& path);

/// Lines of text containing needle.
std::vector<std::string> LinesWith(const std::string& text, const std::string& needle);

/// pid -> rank of the log's lines that contain `what` ("bound rank ", "gave back rank "), each followed by
/// the rank and ending in "pid P" (the bound lines of ranks found by order, the lines of NUMABIND_FORKS).
std::map<long, int> RanksByPid(const std::string& log, const std::string& what);

/// The entries workers made in dir (helpers/barrier, scripts/order_worker.sh: one file per worker, named by
/// its pid and holding its CPUs): pid -> CPUs (the file's first line).
std::map<long, std::string> WorkerEntries(const std::string& dir);

/// The last max_chars characters of text (for failure messages).
std::string Tail(const std::string& text, size_t max_chars = 3000);

/// One JSON object line of a rank reporter (helpers/report.c or scripts/pyreport.py): top-level keys to
/// values. String values are unescaped; numbers, literals and nested objects are kept as their JSON text.
struct Report {
  std::string line;
  std::map<std::string, std::string> fields;
  /// The field's value, "" when absent.
  std::string Get(const std::string& key) const;
};

/// Parses one line; false (with *err) when it is not a flat-enough JSON object.
bool ParseReport(const std::string& line, Report* out, std::string* err);

/// Every non-empty line of path parsed; a line that does not parse gives a Report with no fields.
std::vector<Report> ReadReports(const std::string& path);

/// The build directory: $BUILD made absolute when set (scripts/run-tests.sh sets it), else the parent of the
/// directory holding the running test binary ($BUILD/tests/x_test).
std::string BuildDir();

/// `path` made absolute against the current directory, links kept (a link is how a build directory whose
/// real path has a space gets into LD_PRELOAD).
std::string Absolute(const std::string& path);

/// The repository's root: the current directory when it holds tests/shim/scripts, else BuildDir()/.. .
std::string RepoDir();

/// A fresh directory under $TMPDIR (or /tmp); RemoveTree deletes it and everything below.
std::string MakeTempDir(const std::string& prefix);
void RemoveTree(const std::string& path);

/// The CPUs the calling thread may run on, ascending.
std::vector<int> AllowedCpus();

/// Linux list syntax ("0-3,8") of ascending CPU numbers.
std::string FormatCpuList(const std::vector<int>& cpus);

/// The first two CPUs this process may use and all of them: the shim's tests plan two ranks with the map
/// "cpus:SECOND|FIRST" (`policy`), the reverse of anything a default would give, so that an unbound rank
/// cannot pass. Fails the calling test when fewer than 2 CPUs are allowed.
struct CpuPair {
  std::string first, second;  ///< rank 1's and rank 0's CPU under `policy`
  std::string all;            ///< what an unbound rank gets (Linux list syntax)
  std::string commas;         ///< every allowed CPU, comma separated ("0,1")
  std::string policy;         ///< "cpus:SECOND|FIRST"
  /// The CPU rank r is planned on under `policy`.
  const std::string& ForRank(int r) const { return r % 2 == 0 ? second : first; }
};
CpuPair TwoAllowedCpus();

/// What a run under the shim left: its status, the reports of helpers/report, the library's log, the output.
struct PreloadedRun {
  RunResult run;
  std::vector<Report> reports;
  std::string log;
  std::string output;
};

/// Runs argv with the shim preloaded, NUMABIND_LOG=info into a log file, then `env`, in a fresh directory
/// named after `tag` (removed after). In argv, "@REPORT" is helpers/report and "@OUT" the reports file.
PreloadedRun RunPreloaded(std::vector<std::string> argv, const std::vector<std::string>& env,
                          const std::string& tag);

/// A variable's JSON value in a report's "env": "null" when unset, else the quoted string; "(missing)" when
/// the report did not look.
std::string EnvOf(const Report& r, const std::string& name);

}  // namespace numabind::shim::test

#endif  // NUMABIND_TESTS_SHIM_LAUNCH_UTIL_H_
