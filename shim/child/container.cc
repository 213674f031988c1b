// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Every function in this file may run between fork/vfork and exec: reads of the environment and a raw mmap.

#include "shim/child/container.h"

#include <errno.h>
#include <sys/mman.h>

#include "base/hot.h"
#include "base/preload.h"
#include "base/syscalls.h"
#include "base/text.h"
#include "config/site_file.h"
#include "config/vars.h"
#include "shim/log/line.h"
#include "shim/log/log.h"

namespace numabind::shim {
namespace {

/// The runtimes whose programs run in another root, by the base name they are started with. podman's and
/// apptainer's children are started by raw system calls (Go), never through the library: only their own
/// start can be changed; ch-run execs its program through the C library, after its own start. Characters,
/// not pointers: a table of pointers would be relocated in every process the library is loaded into.
constexpr char kRuntimes[][12] = {"ch-run", "podman", "apptainer", "singularity"};

/// Child-safe (raw reads): whether this process runs in secure-execution mode (AT_SECURE in its auxiliary
/// vector, read from /proc: getauxval through the PLT is no call for a vfork child); true when it cannot
/// tell. Such a process reads no site file.
bool SecureExecution() {
  int fd = base::OpenAt(AT_FDCWD, "/proc/self/auxv", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return true;
  unsigned long pair[2];
  bool secure = true;
  while (base::Sys6(SYS_read, fd, reinterpret_cast<long>(pair), sizeof(pair)) == sizeof(pair) &&
         pair[0] != 0) {
    if (pair[0] == 23) secure = pair[1] != 0;  // AT_SECURE
  }
  base::Sys6(SYS_close, fd);
  return secure;
}

/// What the site file says to a runtime's start: nothing, NUMABIND_CONTAINER's value, or NUMABIND_DISABLE=1.
enum class SiteSays { kNothing, kContainer, kDisabled };

/// Child-safe (raw reads and a private mapping, unmapped again): the site file as a program started with
/// envp reads it (its NUMABIND_CONFIG_FILE, else the compiled-in path): NUMABIND_DISABLE=1, or
/// NUMABIND_CONTAINER's value copied into `out` (`cap` bytes). Nothing when the file sets neither, is bad
/// (said where it is read for a configuration) or is not read (secure execution). Read only for a
/// runtime's start, whose environment sets neither.
SiteSays ReadSiteForContainer(char* const* envp, char* out, size_t cap) {
  const char* path = config::SiteFilePath(const_cast<const char* const*>(envp));
  if (path == nullptr || SecureExecution()) return SiteSays::kNothing;
  long m = base::Sys6(SYS_mmap, 0, sizeof(config::SiteFile), PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base::SysFailed(m)) return SiteSays::kNothing;
  config::SiteFile* site = reinterpret_cast<config::SiteFile*>(m);
  config::Error err;
  bool read = config::ReadSiteFile(path, site, &err);
  const char* off = read ? config::SiteValue(*site, config::kVarDisable, nullptr) : nullptr;
  const char* v = read ? config::SiteValue(*site, config::kVarContainer, nullptr) : nullptr;
  SiteSays says = off != nullptr && base::StrEq(off, "1") ? SiteSays::kDisabled
                  : v != nullptr                          ? SiteSays::kContainer
                                                          : SiteSays::kNothing;
  size_t n = 0;
  for (; v != nullptr && v[n] != '\0' && n + 1 < cap; ++n) out[n] = v[n];
  out[n] = '\0';  // the file's values passed ParseVar: strip or keep, which fit
  base::Sys6(SYS_munmap, m, sizeof(config::SiteFile));
  return says;
}

/// Child-safe: a bad NUMABIND_CONTAINER is said where it acts, as a bad value of any variable is: one line,
/// and the safe reading (strip).
void SayBadContainer(const char* value, const char* why) {
  Line l;
  l.Str("numabind: NUMABIND_CONTAINER=").Str(value).Str(": ").Str(why);
  l.Str(" (the container's programs start without the library, as with strip)");
  WriteLog(config::LogLevel::kWarn, &l);
}

/// What envp itself says (see ClassifyStart): 0 as it is, 1 strip, 2 keep. NUMABIND_CONTAINER comes from
/// envp, else from the site file, as every variable does.
int PreloadWords(char* const* envp) {
  bool preloads = false;
  const char* container = nullptr;  // the first entry of a name counts, as Lookup and getenv find it
  const char* disable = nullptr;
  for (char* const* p = envp; *p != nullptr; ++p) {
    const char* e = *p;
    if (e[0] == 'L') {
      const char* v = base::ValueOf(e, "LD_PRELOAD");
      if (v != nullptr && base::PreloadsShim(v)) preloads = true;
    } else if (e[0] == 'N' && base::StartsWith(e, config::kVarPrefix)) {
      if (container == nullptr) container = base::ValueOf(e, "NUMABIND_CONTAINER");
      if (disable == nullptr) disable = base::ValueOf(e, "NUMABIND_DISABLE");
    }
  }
  if (!preloads || (disable != nullptr && base::StrEq(disable, "1"))) return 0;
  char site[16];
  if (container == nullptr && disable == nullptr) {
    SiteSays says = ReadSiteForContainer(envp, site, sizeof(site));
    if (says == SiteSays::kDisabled) return 0;
    if (says == SiteSays::kContainer) container = site;
  }
  if (container == nullptr || *container == '\0') return 1;
  // NUMABIND_CONTAINER's own reader: one grammar for the environment, the site file and the command.
  config::Config c;
  char why[64];
  if (!config::ReadVar(config::kVarContainer, container, &c, why, sizeof(why))) {
    SayBadContainer(container, why);
    return 1;
  }
  return c.container_keep ? 2 : 1;
}

/// Child-safe (reads memory): whether this process runs as a container runtime, by the base name of the
/// name it was started with (program_invocation_name, argv[0], set by the C library before constructors;
/// a fork child inherits it). Not prctl(PR_GET_NAME): a system call at every exec and spawn of every
/// process the library is in, for the few that are runtimes.
bool SelfIsRuntime() {
  if (&program_invocation_name == nullptr || program_invocation_name == nullptr) return false;  // no libc
  return IsContainerRuntime(base::LastComponent(program_invocation_name));
}

}  // namespace

// Child-safe: compares strings.
bool IsContainerRuntime(const char* name) {
  for (const auto& runtime : kRuntimes) {
    if (base::StrEq(name, runtime)) return true;
  }
  return false;
}

// Child-safe: reads two names and, for a runtime's start only, envp.
NUMABIND_HOT ContainerStart ClassifyStart(const char* path, char* const* envp) {
  if (envp == nullptr) return ContainerStart::kOther;
  // Nearly every start is neither a runtime nor by one: two short names compared, the environment unread.
  bool runtime = IsContainerRuntime(base::LastComponent(path != nullptr ? path : ""));
  if (!runtime && !SelfIsRuntime()) return ContainerStart::kOther;
  int words = PreloadWords(envp);
  if (words == 0) return ContainerStart::kOther;
  if (runtime) return words == 2 ? ContainerStart::kKeepRuntime : ContainerStart::kStrip;
  return words == 1 ? ContainerStart::kStrip : ContainerStart::kOther;
}

// Child-safe: reads envp, a raw mmap and copies into it.
void BuildContainerBlock(char* const* envp, ContainerBlock* out) {
  out->env = envp;
  out->map = nullptr;
  out->map_size = 0;
  size_t count = 0, bytes = 0;
  for (; envp[count] != nullptr; ++count) {
    const char* v = base::ValueOf(envp[count], "LD_PRELOAD");
    if (v != nullptr) bytes += base::StrLen(v) + sizeof("LD_PRELOAD=");
  }
  size_t size = (count + 1) * sizeof(char*) + bytes;
  long p = base::Sys6(SYS_mmap, 0, static_cast<long>(size), PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base::SysFailed(p)) return;
  char** env = reinterpret_cast<char**>(p);
  char* text = reinterpret_cast<char*>(env + count + 1);
  size_t k = 0;
  for (size_t i = 0; i < count; ++i) {
    const char* v = base::ValueOf(envp[i], "LD_PRELOAD");
    if (v == nullptr || !base::PreloadsShim(v)) {
      env[k++] = envp[i];
      continue;
    }
    constexpr size_t kName = sizeof("LD_PRELOAD=") - 1;
    for (size_t j = 0; j < kName; ++j) text[j] = "LD_PRELOAD="[j];
    size_t len = base::WithoutShim(v, text + kName);
    if (len > 0) env[k++] = text;  // nothing else preloaded: no LD_PRELOAD at all
    text += kName + len + 1;
  }
  env[k] = nullptr;
  out->env = env;
  out->map = reinterpret_cast<char*>(p);
  out->map_size = size;
}

// Child-safe: a raw munmap.
void FreeContainerBlock(ContainerBlock* block) {
  if (block->map != nullptr)
    base::Sys6(SYS_munmap, reinterpret_cast<long>(block->map), static_cast<long>(block->map_size));
  block->map = nullptr;
  block->map_size = 0;
  block->env = nullptr;
}

}  // namespace numabind::shim
