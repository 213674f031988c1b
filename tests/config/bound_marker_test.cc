// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_BOUND's grammar (config/bound_marker.h), which the library and `numabind ps` both read.

#include "config/bound_marker.h"

#include <criterion/criterion.h>

#include <string>

using numabind::config::BoundMarker;
using numabind::config::ParseBoundMarker;

Test(bound_marker, variable_value_and_proof) {
  BoundMarker m;
  cr_assert(ParseBoundMarker("OMPI_COMM_WORLD_LOCAL_RANK=12 cpus=0-3,8 by=4242", &m));
  cr_expect_eq(std::string(m.var, m.var_len), "OMPI_COMM_WORLD_LOCAL_RANK");
  cr_expect_eq(std::string(m.value, m.value_len), "12");
  cr_assert(m.has_proof);
  cr_expect_eq(m.proof.by, 4242);
  cr_expect_eq(m.proof.cpus[0], 0x10full);
}

// " spawned": the process named is the launcher that started the rank bound (posix_spawn), not the rank.
// Anything else after the pid is no proof.
Test(bound_marker, spawned_by_its_launcher) {
  BoundMarker m;
  cr_assert(ParseBoundMarker("LOCAL_RANK=1 cpus=2 by=4242 spawned", &m));
  cr_assert(m.has_proof);
  cr_expect_eq(m.proof.by, 4242);
  cr_expect(m.proof.spawned);
  cr_expect_eq(m.proof.cpus[0], 0x4ull);
  cr_assert(ParseBoundMarker("LOCAL_RANK=1 cpus=2 by=4242", &m));
  cr_expect(m.has_proof && !m.proof.spawned);
  for (const char* bad : {"LOCAL_RANK=1 cpus=2 by=4242 spawn", "LOCAL_RANK=1 cpus=2 by=4242 spawned ",
                          "LOCAL_RANK=1 cpus=2 by=4242spawned", "LOCAL_RANK=1 cpus=2 by=4242 x"}) {
    cr_assert(ParseBoundMarker(bad, &m), "%s", bad);
    cr_expect(!m.has_proof, "%s", bad);
  }
}

Test(bound_marker, without_proof) {
  BoundMarker m;
  cr_assert(ParseBoundMarker("LOCAL_RANK=1", &m));
  cr_expect_eq(std::string(m.var, m.var_len), "LOCAL_RANK");
  cr_expect_eq(std::string(m.value, m.value_len), "1");
  cr_expect(!m.has_proof);
  // A proof that does not parse is no proof; the variable and value still stand.
  cr_assert(ParseBoundMarker("LOCAL_RANK=1 cpus=3-1 by=7", &m));
  cr_expect_eq(std::string(m.value, m.value_len), "1");
  cr_expect(!m.has_proof);
  cr_assert(ParseBoundMarker("LOCAL_RANK=1 cpus=1 by=0", &m));
  cr_expect(!m.has_proof);
}

Test(bound_marker, not_a_marker) {
  BoundMarker m;
  for (const char* bad : {"", "=1", "LOCAL RANK=1", "LOCAL_RANK", "-X=1"}) {
    cr_expect(!ParseBoundMarker(bad, &m), "%s", bad);
  }
  cr_expect(!ParseBoundMarker(nullptr, &m));
}
