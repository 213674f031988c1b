// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind run CMD`: checks the configuration, adds libnumabind.so to LD_PRELOAD
// (after the entries already there; through a link in the user's shared directory when its path has a
// space or a colon), sets the options' NUMABIND_* variables and execs CMD. The library then binds the ranks
// that CMD starts.

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vector>

#include "base/preload.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "config/config.h"

namespace numabind::cli {
namespace {

const OptionSpec kRunOptions[] = {
    {"--policy", config::kVarPolicy, false, "P", "required unless set"},
    {"--memory", config::kVarMemory, false, "M", ""},
    {"--smt", config::kVarSmt, false, "N", "at most N hardware threads of each core"},
    {"--core-kinds", config::kVarCoreKinds, false, "K", ""},
    {"--devices", config::kVarDevices, false, "D", ""},
    {"--ranks", config::kVarNranks, false, "N", "number of local ranks, when the launcher does not tell"},
    {"--rank-var", config::kVarRankVar, false, "VAR", "the variable that carries each rank's local rank"},
    {"--match", config::kVarMatch, false, "GLOB", "command lines that take local ranks in spawn order"},
    {"--forks", config::kVarForks, true, "",
     "children Python forks (its fork/forkserver pools; not a shell's) take ranks by order", false, "ranks"},
    {"--topology", config::kVarTopology, false, "T",
     "an hwloc XML file or synthetic:DESC instead of this machine"},
    {"--log", config::kVarLog, false, "L", ""},
    {"--log-file", config::kVarLogFile, false, "FILE", "append log lines to FILE instead of standard error"},
    {"--log-format", config::kVarLogFormat, false, "F", "json: one JSON object per line"},
    {"--strict", config::kVarStrict, true, "", "do not start a rank that cannot be bound"},
    {"--export", config::kVarExport, false, "E",
     "none or a comma list of " NUMABIND_EXPORT_PROSE " (rank variables)"},
    {"--guard", config::kVarGuard, true, "",
     "narrow a rank's own affinity calls to its CPUs (docs/guard.md)"},
    {"--by-device", config::kVarByDevice, true, "",
     "a process that sees one device (CUDA_VISIBLE_DEVICES=3) binds as its rank"},
};

const char* const kRunAbout[] = {
    "Runs CMD (a launcher such as torchrun, mpirun or srun, or a script) with libnumabind.so preloaded\n"
    "and the options' variables set, so that every rank it starts begins on its plan's CPUs and memory.\n"
    "Options not given keep the NUMABIND_* variables already set. The configuration is checked first, as\n"
    "numabind vars --check does: a bad value or site-file line stops it; an unknown name is said.",
    nullptr};

using base::kShimFileName;

std::string Dirname(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

/// `path` made absolute against the current directory, with "." and ".." removed by hand (no symbolic link
/// resolved).
std::string Lexical(const std::string& path) {
  std::string full = path;
  char cwd[PATH_MAX];
  if (path.empty() || path[0] != '/')
    full = std::string(getcwd(cwd, sizeof(cwd)) != nullptr ? cwd : "") + "/" + path;
  std::vector<std::string> parts;
  size_t pos = 0;
  while (pos <= full.size()) {
    size_t end = full.find('/', pos);
    if (end == std::string::npos) end = full.size();
    std::string part = full.substr(pos, end - pos);
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    pos = end + 1;
  }
  std::string out;
  for (const std::string& p : parts) out += "/" + p;
  return out.empty() ? "/" : out;
}

/// The user's shared directory `shared`/numabind-UID, under the plan basis's rules
/// (shim/launcher/basis_cache.cc OpenSharedDirectory): made 0700 if missing, used only if it is a directory
/// (not a link) owned by the user with no group or other access. Returns an O_DIRECTORY descriptor, or -1
/// with errno set when the directory could not be opened and 0 when it breaks the rules.
int OpenUserShared(const std::string& path) {
  mkdir(path.c_str(), 0700);
  int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
    close(fd);
    errno = 0;  // not a system error: the caller names the rule
    return -1;
  }
  return fd;
}

/// FNV-1a, 64 bits: names a build's directory link so that two builds' links do not collide.
uint64_t PathHash(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

/// Whether the link `name` in `dir` points to `target`.
bool LinksTo(int dir, const std::string& name, const std::string& target) {
  char buf[PATH_MAX];
  ssize_t n = readlinkat(dir, name.c_str(), buf, sizeof(buf));
  return n >= 0 && static_cast<size_t>(n) == target.size() && target.compare(0, target.size(), buf, n) == 0;
}

}  // namespace

const HelpText kRunHelp = {
    kRunAbout,
    "CMD's; 2 for bad usage or configuration, 126 when CMD cannot be executed, 127 when it\n"
    "is not found."};

OptionList RunOptions() { return {kRunOptions, sizeof(kRunOptions) / sizeof(kRunOptions[0])}; }

std::string PreloadableLink(const std::string& lib, const char* shared, std::string* err) {
  if (shared == nullptr) shared = "/dev/shm";  // NUMABIND_SHARED=off turns the basis off, not this link
  std::string dir_path = std::string(shared) + "/numabind-" + std::to_string(geteuid());
  if (!Preloadable(dir_path)) {
    *err = "the shared directory " + dir_path + " has a space or a colon too";
    return "";
  }
  int dir = OpenUserShared(dir_path);
  if (dir < 0) {
    *err = "cannot use " + dir_path + ": " +
           (errno != 0 ? strerror(errno) : "it must be a directory of yours with mode 0700");
    return "";
  }
  // A link to the library's directory, so that the preloaded entry still ends in libnumabind.so (the name
  // by which the library and `numabind run` recognise their entry, base/preload.h).
  std::string target = Dirname(lib);
  char name[32];
  snprintf(name, sizeof(name), "build-%016llx", static_cast<unsigned long long>(PathHash(target)));
  bool ok = LinksTo(dir, name, target);
  if (!ok) {
    // Made under a temporary name and renamed over: a concurrent run sees the old link or the new, never
    // none.
    std::string temp = std::string(name) + ".tmp-" + std::to_string(getpid());
    unlinkat(dir, temp.c_str(), 0);
    ok = symlinkat(target.c_str(), dir, temp.c_str()) == 0 && renameat(dir, temp.c_str(), dir, name) == 0;
    if (!ok) {
      *err = "cannot make a link in " + dir_path + ": " + strerror(errno);
      unlinkat(dir, temp.c_str(), 0);
    }
  }
  close(dir);
  return ok ? dir_path + "/" + name + "/" + kShimFileName : "";
}

bool Preloadable(const std::string& path) { return path.find_first_of(" \t\n:") == std::string::npos; }

std::string SelfExe(const char* argv0) {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  std::string exe = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
  // Run through a link from a path that LD_PRELOAD can carry: stay on that side of the link.
  if (argv0 != nullptr && strchr(argv0, '/') != nullptr && (exe.empty() || !Preloadable(exe)))
    return Lexical(argv0);
  return !exe.empty() ? exe : argv0 != nullptr ? argv0 : "numabind";
}

std::string FindShim(const std::string& self_exe, std::string* tried) {
  std::string dir = Dirname(self_exe);
  // Installed: the library's path, fixed at build time (Makefile's SHIM_PATH); a build tree: next to us.
  const std::string candidates[] = {NUMABIND_SHIM_PATH, dir + "/" + kShimFileName,
                                    dir + "/../lib/" + kShimFileName};
  tried->clear();
  for (const std::string& c : candidates) {
    if (c.empty()) continue;
    if (!tried->empty()) *tried += " or ";
    *tried += c;
    char resolved[PATH_MAX];
    if (access(c.c_str(), R_OK) != 0 || realpath(c.c_str(), resolved) == nullptr) continue;
    // The real path has a space or a colon, which LD_PRELOAD cannot carry: keep the link's path if it can.
    if (!Preloadable(resolved) && Preloadable(Lexical(c))) return Lexical(c);
    return resolved;
  }
  return "";
}

std::string ComposePreload(const char* existing, const std::string& lib) {
  std::string current = existing != nullptr ? existing : "";
  // ld.so separates entries with spaces or colons.
  size_t pos = 0;
  while (pos < current.size()) {
    size_t end = current.find_first_of(" :", pos);
    if (end == std::string::npos) end = current.size();
    std::string entry = current.substr(pos, end - pos);
    if (!entry.empty() && (entry == lib || base::IsShimEntry(entry.data(), entry.size())))
      return current;  // already there
    pos = end + 1;
  }
  size_t last = current.find_last_not_of(" :");
  if (last == std::string::npos) return lib;
  return current.substr(0, last + 1) + ":" + lib;
}

int RunMain(const Invocation& call) {
  const char* const* env = call.env;
  FILE* out = call.out;
  FILE* err = call.err;
  ParsedArgs parsed;
  int started = StartCommand(call, &parsed);
  if (started >= 0) return started;
  if (parsed.positionals.empty()) {
    fprintf(err, "numabind run: no command given (numabind run [OPTIONS] -- CMD [ARGS...])\n");
    return kExitUsage;
  }
  Environment merged = MergeOptions(env, parsed);
  // `numabind vars --check`'s check, before anything starts: every bad value and site-file line refuses
  // (even with NUMABIND_DISABLE=1), an unknown name is said and ignored, as the library ignores it.
  ConfigCheck check = CheckConfig(merged, parsed);
  for (const auto& p : check.problems)
    fprintf(err, "numabind run: %s%s\n", p.text.c_str(), p.error ? "" : "; ignored");
  if (check.errors > 0) return kExitUsage;
  // The configuration a process of the command gets, the site file's under the environment's (both good
  // now): its policy with NUMABIND_DISABLE unset, and whether that switches it off.
  const config::SiteFile& site = SiteDefaults(merged.get(), nullptr);
  Environment enabled = merged;
  enabled.Unset("NUMABIND_DISABLE");
  config::Config cfg, with_disable;
  config::Parse(enabled.get(), &cfg, nullptr);
  config::ApplySite(enabled.get(), site, &cfg);
  config::Parse(merged.get(), &with_disable, nullptr);
  config::ApplySite(merged.get(), site, &with_disable);
  if (cfg.policy.text == nullptr && !with_disable.disabled) {
    fprintf(err,
            "numabind run: no policy: give --policy P or set NUMABIND_POLICY (numabind vars lists the "
            "choices)\n");
    return kExitUsage;
  }
  std::string tried;
  std::string shim = FindShim(SelfExe(call.argv0), &tried);
  if (shim.empty()) {
    fprintf(err, "numabind run: cannot find %s (tried %s)\n", kShimFileName, tried.c_str());
    return kExitFailure;
  }
  if (!Preloadable(shim)) {
    // The dynamic loader splits LD_PRELOAD at spaces and colons: preload it through a link in /dev/shm.
    std::string error;
    std::string link = PreloadableLink(shim, cfg.shared, &error);
    if (link.empty()) {
      fprintf(err,
              "numabind run: cannot preload %s: the dynamic loader splits LD_PRELOAD at spaces and colons, "
              "and %s (install numabind, or run it through a symbolic link whose path has neither)\n",
              shim.c_str(), error.c_str());
      return kExitFailure;
    }
    shim = link;
  }
  merged.Set("LD_PRELOAD", ComposePreload(merged.Get("LD_PRELOAD"), shim));

  std::vector<char*> argv;
  for (const std::string& a : parsed.positionals) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  fflush(out);
  fflush(err);
  execvpe(argv[0], argv.data(), const_cast<char* const*>(merged.get()));
  int e = errno;
  fprintf(err, "numabind run: %s: %s\n", argv[0], strerror(e));
  return (e == ENOENT || e == ENOTDIR) ? 127 : 126;
}

}  // namespace numabind::cli
