// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_EXPORT: the variables a bound rank's environment gets, from its plan. One builder serves the
// shim (between fork/vfork and exec, in the caller's memory) and `numabind plan`, so the command shows
// exactly what a launch exports. Compiled into the shim: plain arithmetic on the caller's memory, no
// allocation, locks, libc or system calls.
//
//   omp       OMP_NUM_THREADS (one thread per place), OMP_PLACES ("{0,8},{1,9}": one place per physical
//             core of the rank's CPUs, SMT siblings together; omp-cpus: "{0},{1}", one per CPU) and
//             OMP_PROC_BIND=close; each only when the rank's environment does not have it already
//   gpu       CUDA_VISIBLE_DEVICES (NVIDIA) or ROCR_VISIBLE_DEVICES (AMD) = the rank's device's index in
//             PCI bus order among that vendor's accelerators (a comma list for auto's blocks of devices,
//             RankPlan::device_count); kept, with a note, when the rank has no
//             device, or the variable already names one device, or names a list without this device
//   nic       NCCL_IB_HCA ("=mlx5_0:1,mlx5_1:1": exact names) and UCX_NET_DEVICES ("mlx5_0:1,mlx5_1:1")
//             from RankPlan::nics, each only when not set already

#ifndef NUMABIND_PLAN_RANK_ENV_H_
#define NUMABIND_PLAN_RANK_ENV_H_

#include <stddef.h>
#include <stdint.h>

#include "config/env_facts.h"
#include "plan/plan_basis.h"

namespace numabind::plan {

/// The most bytes of exported entries a rank gets (the shim builds them in a mapping); an entry that
/// would not fit is left out with a note, and the rank is bound as usual.
constexpr size_t kRankEnvMax = 16384;
/// The most entries BuildRankEnv adds (OMP x3, one visibility variable, NCCL and UCX).
constexpr int kRankEnvEntries = 6;

struct RankEnv {
  /// "NAME=value" entries into the caller's buffer, in this order: OMP_NUM_THREADS, OMP_PLACES,
  /// OMP_PROC_BIND, CUDA_VISIBLE_DEVICES or ROCR_VISIBLE_DEVICES, NCCL_IB_HCA, UCX_NET_DEVICES.
  const char* entries[kRankEnvEntries];
  int count;
  /// Why something asked for was not exported ("gpu: rank has no device; OMP_PLACES needs 20000 bytes"),
  /// "" when everything was; the shim logs it as one warn line.
  char note[240];
};

/// Fills `out` with what rank `plan` (computed from `basis`) gets for `exports` (config::kExport* bits),
/// keeping what `env` (the environment the rank starts with, may be nullptr) sets, writing the entries into
/// buf[0..cap). Returns the bytes all the entries need, whether or not they fitted: call once with cap 0
/// to size the buffer (at most kRankEnvMax), then again to fill it. Child-safe.
size_t BuildRankEnv(const PlanBasis& basis, const RankPlan& plan, uint8_t exports, const char* const* env,
                    char* buf, size_t cap, RankEnv* out);
/// The same, with what the rank's environment sets of these variables as its one pass found them
/// (config/env_facts.h: the library's spawns read their environment once). Child-safe.
size_t BuildRankEnv(const PlanBasis& basis, const RankPlan& plan, uint8_t exports, const config::EnvKept& env,
                    char* buf, size_t cap, RankEnv* out);

/// Whether entry ("NAME=value") sets a variable that env's entry `old` must give way to (the narrowed
/// CUDA_VISIBLE_DEVICES replaces the list it was taken from). Child-safe.
bool RankEnvReplaces(const RankEnv& env, const char* old);

}  // namespace numabind::plan

#endif  // NUMABIND_PLAN_RANK_ENV_H_
