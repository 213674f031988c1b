// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The word of a shared mistake (shim/log/shared_mistake.h).

#include "shim/log/shared_mistake.h"

#include <sys/mman.h>

#include "base/syscalls.h"
#include "shim/log/log.h"
#include "shim/state/state.h"

namespace numabind::shim {

// Async-signal-safe: one raw mmap, under EnsurePrepared's lock.
void ShareMistakeWord() {
  if (g_prepared.mistake_said != nullptr) return;
  // MAP_SHARED: a fork child's claim must reach its siblings, which copy-on-write memory would hide. The
  // page lives as long as the launcher; its children inherit it until they exec.
  long page = base::Sys6(SYS_mmap, 0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (base::SysFailed(page)) return;
  g_prepared.mistake_said = reinterpret_cast<uint32_t*>(page);
}

// Child-safe: one atomic exchange on the shared word (the one write of the child side that its parent
// and siblings are meant to see).
bool SaysSharedMistake(uint32_t* word, bool* first) {
  *first = false;
  if (word == nullptr) return true;  // no word: every rank says it, as it always did
  *first = __atomic_exchange_n(word, 1u, __ATOMIC_ACQ_REL) == 0;
  return *first || g_startup.config.log >= config::LogLevel::kDebug || RecordsRanks();
}

}  // namespace numabind::shim
