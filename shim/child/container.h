// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Container runtimes and LD_PRELOAD (docs/containers.md). A runtime (ch-run, podman, apptainer, singularity)
// passes LD_PRELOAD on to the programs in its container, where the library's path does not exist: the
// loader then prints "cannot be preloaded" in every dynamic process there. So the environment a runtime
// starts with, and the one a runtime gives the program it starts, leave libnumabind.so out of LD_PRELOAD
// unless NUMABIND_CONTAINER=keep (the library mounted at the same path inside). Runs in every process the
// library is in, inert or not, at each exec or spawn whose environment preloads the library (the package's
// profile.d script preloads it into every login shell): a look at the program's name and at this process's
// (argv[0]), and only for a runtime a scan of the environment. Child-safe throughout: may run between
// fork/vfork and exec.

#ifndef NUMABIND_SHIM_CHILD_CONTAINER_H_
#define NUMABIND_SHIM_CHILD_CONTAINER_H_

#include <stddef.h>

namespace numabind::shim {

/// Child-safe: whether `name` (a base name) is a container runtime of the one table:
/// ch-run, podman, apptainer, singularity.
bool IsContainerRuntime(const char* name);

/// What starting a program means for the library's place in its LD_PRELOAD.
enum class ContainerStart : unsigned char {
  kOther,  ///< LD_PRELOAD as it is
  kStrip,  ///< leave the library out (BuildContainerBlock)
  /// NUMABIND_CONTAINER=keep and the program is a runtime: LD_PRELOAD as it is. The library inside wants
  /// the plan basis, which the shared directory (NUMABIND_SHARED) can hand it if the starting process
  /// prepared it: the planner helper may not be able to run in the container.
  kKeepRuntime,
};

/// Child-safe: what starting `path` (a path, or a file name for PATH) with envp from this process means.
/// kOther unless an LD_PRELOAD of envp names libnumabind.so (base/preload.h) and NUMABIND_DISABLE is not 1
/// (both read from envp). Then, when `path`'s base name is a container runtime, kKeepRuntime if
/// NUMABIND_CONTAINER (from envp) is keep, else kStrip; otherwise kStrip when NUMABIND_CONTAINER is not keep
/// and this process's own name is a runtime's (the base name of its argv[0]: a runtime's exec of its
/// container's program, after its own start), else kOther.
ContainerStart ClassifyStart(const char* path, char* const* envp);

/// An environment with libnumabind.so left out of LD_PRELOAD, in a mapping of its own (raw mmap: this may
/// be a vfork child, whose stack may be 16 KiB).
struct ContainerBlock {
  char* const* env = nullptr;  ///< the environment to start the program with (envp itself when unchanged)
  char* map = nullptr;         ///< the mapping, nullptr when none was needed
  size_t map_size = 0;
};

/// Child-safe: envp with the library left out of each LD_PRELOAD entry that names it (an entry left empty
/// is dropped), for a start ClassifyStart calls kStrip. A failed mmap leaves envp as it is (the loader's
/// complaint, as before). out->map is for FreeContainerBlock.
void BuildContainerBlock(char* const* envp, ContainerBlock* out);

/// Child-safe: unmaps block->map, if any.
void FreeContainerBlock(ContainerBlock* block);

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_CHILD_CONTAINER_H_
