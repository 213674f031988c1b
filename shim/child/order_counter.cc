// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Child-safe: the shared by-order counter (order_counter.h). Raw system calls and buffers on the stack only:
// this runs between fork/vfork and exec. A vfork child shares its parent's memory, so the page is unmapped
// before the exec (keep = false) and no descriptor outlives the call.

#include "shim/child/order_counter.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

#include "base/digits.h"
#include "base/dir_entries.h"
#include "base/proc_stat.h"
#include "base/syscalls.h"
#include "base/text.h"
#include "shim/state/state.h"

namespace numabind::shim {
namespace {

constexpr long kPage = 4096;

/// Child-safe: appends text to buf (cap bytes) at *at.
void Append(char* buf, size_t cap, size_t* at, const char* text) {
  for (const char* p = text; *p != '\0' && *at + 1 < cap; ++p) buf[(*at)++] = *p;
  buf[*at] = '\0';
}

/// Child-safe: appends a decimal number.
void AppendNum(char* buf, size_t cap, size_t* at, uint64_t v) {
  char digits[base::kDecimalMax];
  base::FormatDecimal(v, digits);
  Append(buf, cap, at, digits);
}

/// Child-safe: whether pid's environment (as it started) has an entry NUMABIND_POLICY=: a process of the
/// configured tree.
bool Configured(long pid) { return base::ProcEnvironHas(pid, "NUMABIND_POLICY=", nullptr, false); }

/// Child-safe: "order-PID-START" into buf (64 bytes).
void CounterName(char* buf, long pid, uint64_t start) {
  size_t at = 0;
  buf[0] = '\0';
  Append(buf, 64, &at, "order-");
  AppendNum(buf, 64, &at, static_cast<uint64_t>(pid));
  Append(buf, 64, &at, "-");
  AppendNum(buf, 64, &at, start);
}

/// Child-safe: unlinks the counters in directory `dir` whose root has finished (another process, or one
/// started later with a reused pid). Run by the process that creates a counter: without handlers, no process
/// can remove its own at exit, so each new tree clears those of the trees before it.
__attribute__((noinline)) void ReapStale(long dir) {
  long dup = base::Sys6(SYS_openat, dir, reinterpret_cast<long>("."), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dup < 0) return;
  base::ForEachDirEntry(dup, [&](const char* name) {
    if (!base::StartsWith(name, "order-")) return;
    const char* p = name + 6;
    uint64_t pid = 0;
    if (base::ScanDecimal(&p, nullptr, 1u << 30, &pid) != base::Digits::kOk) return;
    base::ProcStat stat;
    char live[64];
    if (base::ReadProcStat(static_cast<long>(pid), &stat) && stat.state != 'Z') {
      CounterName(live, static_cast<long>(pid), stat.start);
      if (base::StrEq(live, name)) return;
    }
    base::UnlinkAt(static_cast<int>(dir), name, 0);
  });
  base::Sys6(SYS_close, dup);
}

/// Child-safe: the root of the tree of `launcher`: the topmost ancestor, from the launcher up, that is
/// configured; and its start time. -1 when /proc cannot tell.
__attribute__((noinline)) long TreeRoot(long launcher, uint64_t* start) {
  long root = launcher;
  base::ProcStat stat;
  for (int depth = 0; depth < 64; ++depth) {
    if (!base::ReadProcStat(root, &stat)) return -1;
    if (stat.ppid <= 1 || !Configured(stat.ppid)) break;
    root = stat.ppid;
  }
  if (!base::ReadProcStat(root, &stat)) return -1;
  *start = stat.start;
  return root;
}

/// Child-safe: "<NUMABIND_SHARED>/numabind-UID" into path (256 bytes); false when NUMABIND_SHARED is off.
bool UserDir(char* path, long uid) {
  const char* base = g_startup.config.shared;
  if (base == nullptr || *base == '\0') return false;
  size_t at = 0;
  path[0] = '\0';
  Append(path, 256, &at, base);
  Append(path, 256, &at, "/numabind-");
  AppendNum(path, 256, &at, static_cast<uint64_t>(uid));
  return true;
}

/// Child-safe: the user's directory `path` opened, when it is the user's alone (as the plan basis's
/// directory, shim/launcher/basis_cache.cc: owned by uid, mode 0700, no symbolic link); else -1.
long OpenOwnDir(const char* path, long uid) {
  long dir = base::OpenAt(AT_FDCWD, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir < 0) return -1;
  struct stat st = {};
  if (base::Fstat(static_cast<int>(dir), &st) == 0 && st.st_uid == static_cast<uid_t>(uid) &&
      (st.st_mode & 077) == 0)
    return dir;
  base::Sys6(SYS_close, dir);
  return -1;
}

/// Child-safe: writes a page of zeros at the start of fd, from a fresh anonymous page (a page of stack
/// would not fit a small thread's). 0 or -errno (ENOSPC: no room).
__attribute__((noinline)) long WriteZeroPage(long fd) {
  long zeros = base::Sys6(SYS_mmap, 0, kPage, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base::SysFailed(zeros)) return zeros;
  long done = 0, r = 0;
  while (done < kPage) {
    r = base::Sys6(SYS_pwrite64, fd, zeros + done, kPage - done, done);
    if (r == -EINTR) continue;
    if (r <= 0) break;
    done += r;
  }
  base::Sys6(SYS_munmap, zeros, kPage);
  return done == kPage ? 0 : r < 0 ? r : -ENOSPC;
}

/// Child-safe: allocates the counter page of file fd for real, so that no access to its mapping can fault
/// for want of room. A page grown by ftruncate is allocated at its first write, which on a full tmpfs
/// (/dev/shm is shared by every user) is a SIGBUS in whichever process touches it first. fallocate changes
/// no data, so every process that maps the page calls it (a page that is there already costs a lookup). On
/// a file system without it, the process that created the file (`created`) writes the page and the others
/// wait up to 50 ms for it to be whole (its creator killed meanwhile: the tree goes without a counter).
/// 0 or -errno.
__attribute__((noinline)) long AllocatePage(long fd, bool created) {
  long r = -EINTR;
  for (int i = 0; i < 16 && r == -EINTR; ++i) r = base::Sys6(SYS_fallocate, fd, 0, 0, kPage);
  if (r != -EOPNOTSUPP) return r;
  if (created) return WriteZeroPage(fd);
  for (int attempt = 0; attempt < 50; ++attempt) {
    struct stat st = {};
    if (base::Fstat(static_cast<int>(fd), &st) == 0 && st.st_size >= kPage) return 0;
    timespec ms{0, 1000000};
    base::Sys6(SYS_nanosleep, reinterpret_cast<long>(&ms), 0);
  }
  return r;
}

/// Child-safe: maps the counter page of the tree of `launcher`, creating it if needed; nullptr when it
/// cannot be had, with *page_error the errno that kept the page (or, with no inode left, the directory)
/// from being made or mapped, ENOSPC when the file system is full; 0 when there is no shared directory of
/// the user's alone or no /proc.
__attribute__((noinline)) uint32_t* MapCounter(long launcher, int* page_error) {
  *page_error = 0;
  // A fork child whose launcher was killed before its exec is init's: no tree's (a page named after init
  // would never go).
  if (launcher <= 1) return nullptr;
  long uid = base::Sys6(SYS_geteuid);
  char path[256];
  if (!UserDir(path, uid)) return nullptr;
  uint64_t start;
  long root = TreeRoot(launcher, &start);
  if (root < 0) return nullptr;
  long made = base::Sys6(SYS_mkdirat, AT_FDCWD, reinterpret_cast<long>(path), 0700);
  long dir = OpenOwnDir(path, uid);
  if (dir < 0) {
    if (made == -ENOSPC || made == -EDQUOT) *page_error = static_cast<int>(-made);  // no inode left
    return nullptr;
  }
  char name[64];
  CounterName(name, root, start);
  long flags = O_RDWR | O_NOFOLLOW | O_CLOEXEC;
  long fd = base::Sys6(SYS_openat, dir, reinterpret_cast<long>(name), flags);
  bool created = false;
  if (fd == -ENOENT) {
    fd = base::Sys6(SYS_openat, dir, reinterpret_cast<long>(name), flags | O_CREAT | O_EXCL, 0600);
    created = fd >= 0;
    if (created) ReapStale(dir);
    if (fd == -EEXIST) fd = base::Sys6(SYS_openat, dir, reinterpret_cast<long>(name), flags);
  }
  uint32_t* page = nullptr;
  struct stat fst = {};
  if (fd >= 0 && base::Fstat(static_cast<int>(fd), &fst) == 0 && S_ISREG(fst.st_mode) &&
      fst.st_uid == static_cast<uid_t>(uid) && (fst.st_mode & 077) == 0) {
    // A failed allocation leaves the file as it was (empty): the next process of the tree tries again.
    long r = AllocatePage(fd, created);
    if (r == 0) r = base::Sys6(SYS_mmap, 0, kPage, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base::SysFailed(r))
      *page_error = static_cast<int>(-r);
    else
      page = reinterpret_cast<uint32_t*>(r);
  } else if (fd < 0) {
    *page_error = static_cast<int>(-fd);  // ENOSPC: no inode left for it
  }
  if (fd >= 0) base::Sys6(SYS_close, fd);
  base::Sys6(SYS_close, dir);
  return page;
}

}  // namespace

// Child-safe: raw reads of /proc, one mapping, atomic compare-and-swap on the shared page.
bool ClaimOrderRank(pid_t launcher, bool keep, uint32_t* rank, OrderClaim* claim) {
  int page_error;
  uint32_t* slots = MapCounter(launcher, &page_error);
  if (slots == nullptr) return false;
  uint32_t self = static_cast<uint32_t>(base::Sys6(SYS_getpid));
  for (uint32_t i = 0; i < kOrderSlots; ++i) {
    uint32_t holder = __atomic_load_n(&slots[i], __ATOMIC_ACQUIRE);
    base::ProcStat stat;
    // A finished holder (gone, or a zombie: its worker has ended) frees its slot.
    bool free = holder == 0 || (holder != self && (!base::ReadProcStat(holder, &stat) || stat.state == 'Z'));
    if (!free) continue;
    if (!__atomic_compare_exchange_n(&slots[i], &holder, self, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      --i;  // another rank took it, or freed it meanwhile: look at this slot again
      continue;
    }
    *rank = i;
    claim->slot = &slots[i];
    claim->map = slots;
    if (!keep) FinishOrderClaim(claim, self);
    return true;
  }
  base::Sys6(SYS_munmap, reinterpret_cast<long>(slots), kPage);
  return false;
}

// Child-safe: raw reads of /proc.
bool IsOrderTreeRoot(pid_t launcher) {
  uint64_t start;
  long top = TreeRoot(launcher, &start);
  return top < 0 || top == launcher;
}

// Child-safe: as ClaimOrderRank.
bool OrderCounterUsable(pid_t launcher, int* page_error) {
  uint32_t* page = MapCounter(launcher, page_error);
  if (page == nullptr) return false;
  base::Sys6(SYS_munmap, reinterpret_cast<long>(page), kPage);
  return true;
}

// Child-safe: as ClaimOrderRank, and one atomic or on the flags word.
bool FirstInOrderTree(pid_t launcher, uint32_t flag) {
  int page_error;
  uint32_t* page = MapCounter(launcher, &page_error);
  if (page == nullptr) return true;  // no page: each says it
  bool first = (__atomic_fetch_or(&page[kOrderSlots], flag, __ATOMIC_ACQ_REL) & flag) == 0;
  base::Sys6(SYS_munmap, reinterpret_cast<long>(page), kPage);
  return first;
}

// Child-safe: one atomic store and a munmap.
void FinishOrderClaim(OrderClaim* claim, uint32_t owner) {
  if (claim->map == nullptr) return;
  __atomic_store_n(claim->slot, owner, __ATOMIC_RELEASE);
  base::Sys6(SYS_munmap, reinterpret_cast<long>(claim->map), kPage);
  claim->map = nullptr;
  claim->slot = nullptr;
}

// At exit (start.cc's destructor): raw calls.
void RemoveOwnOrderCounter() {
  long uid = base::Sys6(SYS_geteuid);
  char path[256];
  if (!UserDir(path, uid)) return;
  long self = base::Sys6(SYS_getpid);
  base::ProcStat stat;
  if (!base::ReadProcStat(self, &stat)) return;
  long dir = OpenOwnDir(path, uid);
  if (dir < 0) return;
  char name[64];
  CounterName(name, self, stat.start);
  base::UnlinkAt(static_cast<int>(dir), name, 0);
  base::Sys6(SYS_close, dir);
}

}  // namespace numabind::shim
