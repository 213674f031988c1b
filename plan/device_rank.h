// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A process that no launcher ranks but that a framework started with one device (Ray's actors, serving
// engines' workers: CUDA_VISIBLE_DEVICES=3) is, under NUMABIND_BY_DEVICE=1, the rank of that device among
// every device of the machine. libc only: the library computes it at start-up from its basis.

#ifndef NUMABIND_PLAN_DEVICE_RANK_H_
#define NUMABIND_PLAN_DEVICE_RANK_H_

#include <stdint.h>

#include "config/visible_devices.h"
#include "plan/plan_basis.h"

namespace numabind::plan {

/// The rank of the one device `d` names among `basis`'s device slots (a basis planned over every device:
/// rank r drives slot r), and the rank count, the number of slots. A UUID names the slot whose
/// PlanSlot::uuid it is or begins (case aside). False when `d` names no device, when no slot's device is
/// the one named, or when two are (a UUID prefix of two devices; an NVIDIA and an AMD device each named by
/// its own variable): then the process is no rank.
bool DeviceRank(const PlanBasis& basis, const config::OneDevice& d, uint32_t* rank, uint32_t* nranks);

}  // namespace numabind::plan

#endif  // NUMABIND_PLAN_DEVICE_RANK_H_
