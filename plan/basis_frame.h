// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// How a prepared plan basis travels from the planner helper (`numabind prepare-basis`) to the shim over a
// pipe: an 8-byte tag, the payload's length, then the payload (the basis block with offsets for pointers,
// or an error's text).

#ifndef NUMABIND_PLAN_BASIS_FRAME_H_
#define NUMABIND_PLAN_BASIS_FRAME_H_

#include <stdint.h>

namespace numabind::core {

struct BasisFrameHeader {
  char tag[8];      ///< kBasisTag or kErrorTag
  uint64_t length;  ///< bytes that follow
};

inline constexpr char kBasisTag[8] = {'N', 'B', 'B', 'A', 'S', 'I', 'S', '1'};
inline constexpr char kErrorTag[8] = {'N', 'B', 'E', 'R', 'R', 'O', 'R', '1'};

}  // namespace numabind::core

#endif  // NUMABIND_PLAN_BASIS_FRAME_H_
