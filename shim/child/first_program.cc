// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The first program of a launch, named when it is no rank (shim/child/first_program.h).

#include "shim/child/first_program.h"

#include "base/syscalls.h"
#include "shim/child/order_counter.h"
#include "shim/log/log.h"
#include "shim/log/shared_mistake.h"

namespace numabind::shim {

void ShareFirstProgramWord() {
  if (g_prepared.first_program != nullptr || g_startup.config.log < config::LogLevel::kInfo) return;
  // Its launch's first program only: not each shell of a job that exports the variables, nor a launch with a
  // bad configuration (its ranks say that).
  if (g_startup.config_error[0] != '\0' || !IsOrderTreeRoot(static_cast<pid_t>(base::Sys6(SYS_getpid))))
    return;
  ShareMistakeWord();
  if (g_prepared.mistake_said != nullptr) g_prepared.first_program = g_prepared.mistake_said + 2;
}

namespace {

/// Child-safe: the line, on the stack only here.
__attribute__((noinline)) void SayFirstProgram(const char* path) {
  Line l;
  l.Str("numabind: ").Str(path).Str(", the first program this launcher started, is no rank: ");
  const char* var = g_startup.config.rank_var;
  if (var != nullptr)
    l.Str("its environment has no ").Str(var).Str(" (NUMABIND_RANK_VAR)");
  else
    l.Str("its environment has no rank variable (LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_RANK, ...)");
  l.Str(" and its command line matches no NUMABIND_MATCH; programs that get no rank from their launcher ");
  l.Str("take ranks with numabind run --match GLOB, --forks (Python fork pools) or --by-device");
  WriteLog(config::LogLevel::kInfo, &l);
}

}  // namespace

// Child-safe: one atomic exchange on the shared word, then SayFirstProgram.
void NoteFirstProgram(const ChildArgs& a, bool rank, const char* path) {
  uint32_t* word = a.prepared->first_program;
  if (word == nullptr || __atomic_exchange_n(word, 1u, __ATOMIC_ACQ_REL) != 0 || rank) return;
  SayFirstProgram(path);
}

}  // namespace numabind::shim
