// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The first half of planning: (topology, policy, memory policy, devices) -> PlanBasis, built once per
// launcher. ComputeRankPlan (plan_basis.h) then places each rank. Policies follow `torchrun
// --numa-binding` (torch/numa/binding.py) where it defines them; where numabind differs it says so below
// and in planner.cc.
//
//   node          every allowed CPU of the rank's NUMA node (the node of its device, or its block of nodes)
//   socket        every allowed CPU of the package(s) holding that node; memory over that package's nodes
//   exclusive     the node's physical cores (each core's allowed PUs: SMT siblings never split), in CPU
//                 order, cut into contiguous slices for the ranks that share the node, lower ranks taking
//                 the remainder; fewer cores than ranks is an error for those ranks
//   core-complex  one last-level-cache domain of the node per rank: caches with more allowed CPUs first,
//                 ties to the lowest CPU, wrapping when ranks outnumber caches
//   cpus:A|B|...  rank r gets CPU list entry r mod count (`*N` repeats an entry: "cpus:0-3*2|4-7*2")
//   nodes:A|B|... rank r gets the allowed CPUs of node list entry r mod count, memory on those nodes
//
// Without devices, ranks spread over the NUMA nodes that have allowed CPUs in contiguous blocks (rank r of
// n on node floor(r*N/n)); with devices, rank r drives device r mod count and goes to that device's node.

#ifndef NUMABIND_PLANNER_PLANNER_H_
#define NUMABIND_PLANNER_PLANNER_H_

#include <string>
#include <vector>

#include "config/config.h"
#include "plan/plan_basis.h"
#include "planner/cpu_set.h"
#include "planner/topology.h"

namespace numabind::planner {

/// A policy with its map expanded (ExpandPolicy).
struct Policy {
  config::PolicyKind kind = config::PolicyKind::kNode;
  std::string text;  ///< as written
  /// Maps only: one set per rank entry after `*N` expansion (CPU numbers for cpus:, node numbers for
  /// nodes:).
  std::vector<CpuSet> entries;
};

/// What to plan for: config's typed values. config::Parse (the command) or config::ParseVar (the helper,
/// RequestFromText) read them; the planner parses none of them again.
struct PrepareRequest {
  const char* topology = nullptr;  ///< nullptr or "" = live machine; an hwloc XML path; or "synthetic:DESC"
  config::Policy policy;           ///< required: policy.text is set
  config::MemoryKind memory = config::MemoryKind::kLocal;
  config::Devices devices;           ///< default auto
  const char* const* env = nullptr;  ///< the launcher's environment, for CUDA_VISIBLE_DEVICES and friends
  bool want_nics = false;            ///< discover HCAs and give each rank its nearest (NUMABIND_EXPORT nic)
  uint32_t smt = 0;                  ///< NUMABIND_SMT: hardware threads kept per core; 0 = all
  bool all_kinds = false;            ///< NUMABIND_CORE_KINDS=all: the fastest core kind does not go first
};

/// A request from the variables' texts (memory and devices: nullptr or "" = default) read by config's
/// parser of each (config::ParseVar), for `numabind prepare-basis` and tests. False with the line
/// config::Parse gives (the variable, the value and the bad part), or when the policy is unset or empty.
/// The request points into the texts.
bool RequestFromText(const char* policy, const char* memory, const char* devices, PrepareRequest* out,
                     std::string* err);

/// The request `numabind prepare-basis` gets: "--NAME VALUE" pairs, one per config::PlannerInput
/// (config/planner_inputs.h), as the library sends them; `env` becomes request.env. False with a one-line
/// reason: kBadArgument for an option that is not an input or a missing value (a caller that is not the
/// library), kBadValue for a value RequestFromText refuses. The request points into `args`.
enum class ArgsResult { kOk, kBadArgument, kBadValue };
ArgsResult RequestFromArgs(const std::vector<std::string>& args, const char* const* env, PrepareRequest* out,
                           std::string* err);

/// The sets of a parsed policy's map, one per entry after `*N` repeats (config::MapEntries, config::Ranges).
Policy ExpandPolicy(const config::Policy& policy);

/// Builds the basis for `request` on `topo` (request.topology is ignored). Returns one malloc'd block
/// (release with free()) or nullptr with a one-line reason in *err.
plan::PlanBasis* PreparePlanBasis(const Topology& topo, const PrepareRequest& request, std::string* err);

/// Loads the topology the request names (PCI discovery only when devices are wanted) and builds the basis.
/// What `numabind plan` and `numabind prepare-basis` call.
plan::PlanBasis* Prepare(const PrepareRequest& request, std::string* err);

}  // namespace numabind::planner

#endif  // NUMABIND_PLANNER_PLANNER_H_
