// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The shared plan basis (see basis_cache.h). Parent side: libc calls, errno left as the caller saved it.

#include "shim/launcher/basis_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/mempolicy.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/syscalls.h"
#include "config/grammar.h"
#include "config/planner_inputs.h"
#include "plan/basis_frame.h"
#include "shim/launcher/helper_launch.h"
#include "shim/log/line.h"
#include "shim/state/state.h"

namespace numabind::shim {
namespace {

// A file of another basis layout is never read: its magic is the frame's tag, which carries the layout's
// version (plan/basis_frame.h).
constexpr const char (&kMagic)[8] = plan::kBasisTag;
constexpr size_t kMaxFrame = 64u << 20;

struct FileHeader {
  char magic[8];
  uint64_t name;      ///< the hash the file is named by
  uint64_t identity;  ///< the machine's state when it was prepared
  uint64_t size;      ///< bytes of the frame that follows
  uint64_t checksum;  ///< FNV-1a of the frame
};

struct Hash {
  uint64_t h = 1469598103934665603ull;
  void Bytes(const void* p, size_t n) {
    const unsigned char* b = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  }
  void Str(const char* s) { Bytes(s != nullptr ? s : "(null)", strlen(s != nullptr ? s : "(null)") + 1); }
  template <typename T>
  void Value(const T& v) {
    Bytes(&v, sizeof(v));
  }
  /// A small file's contents ("" when unreadable).
  void File(const char* path) {
    char buf[512];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;
    if (fd >= 0) close(fd);
    Bytes(buf, n > 0 ? static_cast<size_t>(n) : 0);
    Value(n);
  }
  /// A file's identity: device, inode, size and modification time.
  void Stat(const char* path) {
    struct stat st;
    if (path == nullptr || base::FstatAt(AT_FDCWD, path, &st, 0) != 0) return Value(-1);
    Value(st.st_dev), Value(st.st_ino), Value(st.st_size), Value(st.st_mtim.tv_sec),
        Value(st.st_mtim.tv_nsec);
  }
};

/// What the basis depends on in this process: the helper, the configuration, the environment the helper
/// reads, and the CPUs and nodes it may use (the cgroup cpuset bounds both).
uint64_t NameHash(const char* helper, char* const* planner_env) {
  Hash h;
  h.Str("numabind plan basis"), h.Value(plan::kBasisLayoutVersion);  // layouts keep a file each
  h.Str(helper);  // two installations (or build trees) keep a file each
  // The helper's inputs as its argv gives them (config/planner_inputs.h): nothing reaches one but not the
  // other.
  const char* texts[config::kPlannerInputCount];
  config::PlannerInputTexts(g_startup.config, texts);
  const char* args[2 * config::kPlannerInputCount];
  for (int i = 0, n = config::PlannerInputArgs(texts, args); i < n; ++i) h.Str(args[i]);
  for (char* const* e = planner_env; *e != nullptr; ++e) {
    if (PlannerReads(*e, false)) h.Str(*e);
  }
  uint64_t cpus[config::kMaxCpuWords] = {0};
  long got = base::Sys6(SYS_sched_getaffinity, 0, sizeof(cpus), reinterpret_cast<long>(cpus));
  h.Bytes(cpus, got > 0 ? static_cast<size_t>(got) : 0);
  uint64_t nodes[config::kMaxNodeWords] = {0};
  int mode = 0;
  base::Sys6(SYS_get_mempolicy, reinterpret_cast<long>(&mode), reinterpret_cast<long>(nodes),
             static_cast<long>(config::kMaxNodeWords) * 64, 0, MPOL_F_MEMS_ALLOWED);
  h.Bytes(nodes, sizeof(nodes));
  return h.h;
}

/// The machine's state the basis was prepared in; a file whose identity differs is stale.
uint64_t Identity(const char* helper) {
  Hash h;
  h.File("/proc/sys/kernel/random/boot_id");
  h.File("/sys/devices/system/cpu/online");
  h.File("/sys/devices/system/node/online");
  h.Stat(helper);
  const char* topology = g_startup.config.topology;
  if (topology != nullptr && strncmp(topology, "synthetic:", 10) != 0) h.Stat(topology);
  return h.h;
}

}  // namespace

int OpenSharedDirectory() {
  const char* base = g_startup.config.shared;
  if (base == nullptr) return -1;
  uid_t uid = geteuid();
  Line path;
  path.Str(base).Str("/numabind-").Num(uid);
  mkdir(path.CStr(), 0700);
  int fd = open(path.CStr(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat st;
  if (base::Fstat(fd, &st) != 0 || st.st_uid != uid || (st.st_mode & 077) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

SharedKey SharedBasisKey(const char* helper, char* const* planner_env) {
  return {helper, NameHash(helper, planner_env)};
}

namespace {

void FileName(uint64_t name, char* out) {
  static const char kHex[] = "0123456789abcdef";
  memcpy(out, "basis-", 6);
  for (int i = 0; i < 16; ++i) out[6 + i] = kHex[(name >> (60 - 4 * i)) & 15];
  out[22] = '\0';
}

/// Moves all n bytes through `io` (read or write, restarted after EINTR); false at an error or end of file.
template <typename Io>
bool Whole(Io io, char* buf, size_t n) {
  while (n > 0) {
    ssize_t done = io(buf, n);
    if (done < 0 && errno == EINTR) continue;
    if (done <= 0) return false;
    buf += done;
    n -= static_cast<size_t>(done);
  }
  return true;
}

bool ReadAll(int fd, char* buf, size_t n) {
  return Whole([fd](char* p, size_t k) { return read(fd, p, k); }, buf, n);
}

bool WriteAll(int fd, const char* buf, size_t n) {
  return Whole([fd](char* p, size_t k) { return write(fd, p, k); }, const_cast<char*>(buf), n);
}

}  // namespace

bool PlannerReads(const char* entry, bool all_devices) {
  if (strncmp(entry, "HWLOC_", 6) == 0) return true;
  if (all_devices) return false;
  const config::EnvNames& n = config::kEnvNames;
  return config::ValueOf(entry, n.cuda_visible_devices) != nullptr ||
         config::ValueOf(entry, n.rocr_visible_devices) != nullptr ||
         config::ValueOf(entry, n.hip_visible_devices) != nullptr;
}

bool LoadSharedBasis(const SharedKey& key, HelperRun* run) {
  int dir = OpenSharedDirectory();
  if (dir < 0) return false;
  uint64_t name = key.name;
  char file[32];
  FileName(name, file);
  int fd = base::OpenAt(dir, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  close(dir);
  if (fd < 0) return false;
  struct stat st;
  FileHeader header;
  char* frame = nullptr;
  // Another user's file, or one that someone else could have written, is never read.
  bool ok = base::Fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
            (st.st_mode & 022) == 0 && ReadAll(fd, reinterpret_cast<char*>(&header), sizeof(header)) &&
            memcmp(header.magic, kMagic, sizeof(kMagic)) == 0 && header.name == name &&
            header.size <= kMaxFrame && static_cast<uint64_t>(st.st_size) == sizeof(header) + header.size &&
            header.identity == Identity(key.helper);
  size_t mapped = (header.size + 4095) & ~static_cast<size_t>(4095);
  if (ok && header.size > 0) {
    long m = base::Sys6(SYS_mmap, 0, static_cast<long>(mapped), PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    frame = base::SysFailed(m) ? nullptr : reinterpret_cast<char*>(m);
  }
  ok = frame != nullptr && ReadAll(fd, frame, header.size);
  close(fd);
  if (ok) {
    Hash sum;
    sum.Bytes(frame, header.size);
    ok = sum.h == header.checksum;
  }
  if (!ok) {
    if (frame != nullptr) base::Sys6(SYS_munmap, reinterpret_cast<long>(frame), static_cast<long>(mapped));
    return false;
  }
  run->out = frame;
  run->size = header.size;
  run->mapped = mapped;
  return true;
}

void StoreSharedBasis(const SharedKey& key, const char* frame, size_t size) {
  int dir = OpenSharedDirectory();
  if (dir < 0) return;
  FileHeader header;
  memcpy(header.magic, kMagic, sizeof(kMagic));
  header.name = key.name;
  header.identity = Identity(key.helper);
  header.size = size;
  Hash sum;
  sum.Bytes(frame, size);
  header.checksum = sum.h;
  char file[32];
  FileName(header.name, file);
  timespec now = base::ClockNow(CLOCK_MONOTONIC);
  Line tmp;
  tmp.Str(".").Str(file).Str(".").Num(base::Sys6(SYS_getpid)).Str(".").Num(now.tv_nsec);
  RemoveStaleTemporaries(dir);
  int fd = base::OpenAt(dir, tmp.CStr(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd >= 0) {
    bool ok =
        WriteAll(fd, reinterpret_cast<const char*>(&header), sizeof(header)) && WriteAll(fd, frame, size);
    ok = close(fd) == 0 && ok;
    // rename replaces a stale file in one step: a reader sees the old file or the new one, never a part.
    if (!ok || base::RenameAt(dir, tmp.CStr(), dir, file) != 0) base::UnlinkAt(dir, tmp.CStr(), 0);
  }
  close(dir);
}

}  // namespace numabind::shim
