// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Re-entrancy guard. While the shim works in the parent (loading the planner, which runs other libraries'
// constructors), any spawn those make passes straight through. Never set on the child side: a vfork child
// shares its parent's thread-local storage.

#ifndef NUMABIND_SHIM_STATE_GUARD_H_
#define NUMABIND_SHIM_STATE_GUARD_H_

namespace numabind::shim {

extern __thread bool t_in_shim __attribute__((tls_model("initial-exec")));

class Guard {
 public:
  Guard() : was_(t_in_shim) { t_in_shim = true; }
  ~Guard() { t_in_shim = was_; }
  Guard(const Guard&) = delete;
  Guard& operator=(const Guard&) = delete;

 private:
  bool was_;
};

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_STATE_GUARD_H_
