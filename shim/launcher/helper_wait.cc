// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The host's wait for a helper (shim/launcher/helper_procs.h): its output, mapped as it grows, and the
// keeper's reports, on pipes polled with the stop signals' signalfd. Raw system calls only.

#include <errno.h>
#include <poll.h>
#include <sys/mman.h>
#include <time.h>

#include "base/syscalls.h"
#include "shim/launcher/helper_procs.h"

namespace numabind::shim::helper {
namespace {

/// The first of `watched` pending for the calling thread or its process, 0 when none is.
int PendingStop(uint64_t watched) {
  uint64_t pending = 0;
  base::Sys6(SYS_rt_sigpending, reinterpret_cast<long>(&pending), kSigsetBytes);
  for (int sig : kStopSignals) {
    if ((pending & watched & Bit(sig)) != 0) return sig;
  }
  return 0;
}

/// Appends up to what `fd` has to run->out, growing the mapping; false at end of file or error.
bool ReadSome(int fd, size_t cap, HelperRun* run, size_t* mapped) {
  if (run->size == *mapped) {
    size_t bigger = *mapped == 0 ? 65536 : *mapped * 2;
    void* p =
        *mapped == 0
            ? reinterpret_cast<void*>(base::Sys6(SYS_mmap, 0, static_cast<long>(bigger),
                                                 PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
            : reinterpret_cast<void*>(base::Sys6(SYS_mremap, reinterpret_cast<long>(run->out),
                                                 static_cast<long>(*mapped), static_cast<long>(bigger),
                                                 MREMAP_MAYMOVE));
    if (base::SysFailed(reinterpret_cast<long>(p))) return false;
    run->out = static_cast<char*>(p);
    *mapped = bigger;
  }
  size_t want = *mapped - run->size;
  if (want > cap + 1 - run->size) want = cap + 1 - run->size;  // one byte past the cap tells "too much"
  long got = base::Sys6(SYS_read, fd, reinterpret_cast<long>(run->out + run->size), static_cast<long>(want));
  if (got == -EINTR || got == -EAGAIN) return true;
  if (got <= 0) return false;
  run->size += static_cast<size_t>(got);
  return run->size <= cap;
}

/// Reads from the keeper's report pipe; false at its end.
bool ReadReport(Host* h) {
  long got = base::Sys6(SYS_read, h->status[0], reinterpret_cast<long>(h->reports + h->reported),
                        static_cast<long>(sizeof(h->reports) - h->reported));
  if (got > 0) h->reported += static_cast<size_t>(got);
  return got > 0 || got == -EINTR;
}

/// The helper is reaped: takes what it left in the pipe, but waits for no one else (a child of the
/// helper's that kept its standard output).
void DrainOutput(Host* h, size_t cap, HelperRun* run) {
  pollfd fd{h->data[0], POLLIN, 0};
  timespec now{0, 0};
  while (h->data_open && !h->too_much &&
         base::Sys6(SYS_ppoll, reinterpret_cast<long>(&fd), 1, reinterpret_cast<long>(&now), 0,
                    kSigsetBytes) > 0) {
    h->data_open = ReadSome(h->data[0], cap, run, &h->mapped);
    h->too_much = run->size > cap;
  }
}

}  // namespace

// Parent side, async-signal-safe: raw system calls.
void Collect(Host* h, size_t cap, long deadline, HelperRun* run) {
  while ((h->data_open || h->status_open) && (h->stop = PendingStop(h->watched)) == 0) {
    long left = deadline - NowMs();
    if (left <= 0) break;
    if (h->stop_fd < 0 && left > 100) left = 100;  // no signalfd (a seccomp filter?): look every 100 ms
    pollfd fds[3];
    int n = 0;
    if (h->data_open) fds[n++] = {h->data[0], POLLIN, 0};
    if (h->status_open) fds[n++] = {h->status[0], POLLIN, 0};
    if (h->stop_fd >= 0) fds[n++] = {h->stop_fd, POLLIN, 0};  // never read: the signal stays pending
    timespec ts{left / 1000, (left % 1000) * 1000000L};
    long r =
        base::Sys6(SYS_ppoll, reinterpret_cast<long>(fds), n, reinterpret_cast<long>(&ts), 0, kSigsetBytes);
    if (r == -EINTR || r == 0) continue;
    if (r < 0) break;
    for (int i = 0; i < n; ++i) {
      if (fds[i].revents == 0 || fds[i].fd == h->stop_fd) continue;
      if (fds[i].fd == h->data[0]) {
        h->data_open = ReadSome(h->data[0], cap, run, &h->mapped);
        h->too_much = run->size > cap;
      } else {
        h->status_open = ReadReport(h);
      }
    }
    if (h->too_much) break;
    if (h->reported == sizeof(h->reports) && h->data_open) return DrainOutput(h, cap, run);
  }
}

// Parent side, async-signal-safe: raw system calls.
void AwaitReport(Host* h, long deadline) {
  while (h->reported < sizeof(h->reports) && NowMs() < deadline && (h->stop = PendingStop(h->watched)) == 0) {
    pollfd fd{h->status[0], POLLIN, 0};
    timespec ts{0, 100 * 1000000L};
    if (base::Sys6(SYS_ppoll, reinterpret_cast<long>(&fd), 1, reinterpret_cast<long>(&ts), 0, kSigsetBytes) <=
        0)
      continue;
    long got = base::Sys6(SYS_read, h->status[0], reinterpret_cast<long>(h->reports + h->reported),
                          static_cast<long>(sizeof(h->reports) - h->reported));
    if (got <= 0) break;
    h->reported += static_cast<size_t>(got);
  }
}

}  // namespace numabind::shim::helper
