// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0

#include "shim/launcher/stop_signals.h"

#include <signal.h>

#include "base/syscalls.h"
#include "shim/launcher/helper_procs.h"

namespace numabind::shim {

using helper::Bit;
using helper::KernelSigaction;
using helper::kSigsetBytes;
using helper::kStopSignals;

namespace {
constexpr long kSfdNonblockCloexec = 04000 | 02000000;  // SFD_NONBLOCK | SFD_CLOEXEC
}  // namespace

uint64_t WatchedStopSignals() {
  uint64_t watched = 0;
  for (int sig : kStopSignals) {
    KernelSigaction act{};
    if (base::Sys6(SYS_rt_sigaction, sig, 0, reinterpret_cast<long>(&act), kSigsetBytes) == 0 &&
        act.handler != SIG_IGN) {
      watched |= Bit(sig);
    }
  }
  return watched;
}

void StopWatch::Begin() {
  watched = WatchedStopSignals();
  base::Sys6(SYS_rt_sigprocmask, SIG_BLOCK, reinterpret_cast<long>(&watched),
             reinterpret_cast<long>(&old_mask), kSigsetBytes);
  if (watched != 0) {
    fd = static_cast<int>(base::AboveStdio(
        base::Sys6(SYS_signalfd4, -1, reinterpret_cast<long>(&watched), kSigsetBytes, kSfdNonblockCloexec)));
  }
}

void StopWatch::End() {
  if (fd >= 0) base::Sys6(SYS_close, fd);
  fd = -1;
  base::Sys6(SYS_rt_sigprocmask, SIG_SETMASK, reinterpret_cast<long>(&old_mask), 0, kSigsetBytes);
}

int StopWatch::Pending() const {
  uint64_t pending = 0;
  if (base::Sys6(SYS_rt_sigpending, reinterpret_cast<long>(&pending), kSigsetBytes) != 0) return 0;
  pending &= watched;
  for (int sig = 1; sig <= 64; ++sig) {
    if ((pending & Bit(sig)) != 0) return sig;
  }
  return 0;
}

}  // namespace numabind::shim
