// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// How a prepared plan basis travels from the planner helper (`numabind prepare-basis`) to the shim over a
// pipe: an 8-byte tag, the payload's length, then the payload (the basis block with offsets for pointers,
// or an error's text).

#ifndef NUMABIND_PLAN_BASIS_FRAME_H_
#define NUMABIND_PLAN_BASIS_FRAME_H_

#include <stdint.h>

namespace numabind::plan {

struct BasisFrameHeader {
  char tag[8];      ///< kBasisTag or kErrorTag
  uint64_t length;  ///< bytes that follow
};

/// The basis layout's version: change it with PlanBasis, so that no process reads a block of another
/// layout (2: slot device ordinals, CPU siblings; 3: NIC tables; 4: PlanBasis::unit_domains for auto; 5:
/// PlanSlot::uuid; 6: the memory tiers' table, PlanBasis::tier_*; 7: PlanSlot::fast_units; 8: auto's slots
/// lead with a run of the fastest kind's cores). The frame's tag carries it, and so do the shared basis files
/// (their magic and their name: shim/launcher/basis_cache.cc).
inline constexpr char kBasisLayoutVersion = '8';
inline constexpr char kBasisTag[8] = {'N', 'B', 'B', 'A', 'S', 'I', 'S', kBasisLayoutVersion};
inline constexpr char kErrorTag[8] = {'N', 'B', 'E', 'R', 'R', 'O', 'R', '1'};

}  // namespace numabind::plan

#endif  // NUMABIND_PLAN_BASIS_FRAME_H_
