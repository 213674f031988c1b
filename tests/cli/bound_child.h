// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Live processes for the `numabind show` tests (show_test.cc, draw_test.cc).

#ifndef NUMABIND_TESTS_CLI_BOUND_CHILD_H_
#define NUMABIND_TESTS_CLI_BOUND_CHILD_H_

#include <sys/types.h>

/// A child bound to CPU `cpu` with memory policy `mode` (MPOL_*) on node 0; it waits to be killed and
/// dies with the test. Fails the test when this machine refuses the binding.
pid_t BoundChild(int cpu, int mode);

/// Kills and reaps a BoundChild.
void Reap(pid_t pid);

#endif  // NUMABIND_TESTS_CLI_BOUND_CHILD_H_
