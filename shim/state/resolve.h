// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Finding the real functions the wrappers call (g_real, shim/state/state.h): dlsym(RTLD_NEXT), the global
// scope when the library was loaded with dlopen (nothing comes after it then), and an ELF symbol-table walk
// for _Fork, which may run where dlsym may not.

#ifndef NUMABIND_SHIM_STATE_RESOLVE_H_
#define NUMABIND_SHIM_STATE_RESOLVE_H_

namespace numabind::shim {

/// Fills g_real once (one dlsym per row of wrapped.def with a real function: about 20k instructions, which
/// an inert process never pays; _Fork is found by its wrapper, with ResolveSafe).
void EnsureResolved();

/// Resolves one real function if it is not yet: for a process that execs itself (env, nice, a shell's
/// `exec`), which needs only the one it calls. A child of our fork, vfork or spawn finds them resolved.
void* ResolveOne(const char* name);

/// ResolveOne without dlsym, for _Fork's wrapper, which may run in a signal handler (where dlsym, which
/// holds the loader's lock through a whole dlopen, may not) and before the constructor: finds `name` in the
/// symbol tables of the objects loaded after this library, in dl_iterate_phdr's order (RTLD_NEXT's), by
/// hand, and in every other object when none after it has it (loaded with dlopen). No malloc; the loader's
/// list lock only while it walks the list. Falls back to dlsym when no object has it by hand.
void* ResolveSafe(const char* name);

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_STATE_RESOLVE_H_
