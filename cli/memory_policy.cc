// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Kernel memory policies in NUMABIND_MEMORY's words (cli/memory_policy.h).

#include "cli/memory_policy.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "config/grammar.h"

namespace numabind::cli {
namespace {

// From linux/mempolicy.h, spelled out so that no numactl headers are needed.
constexpr int kMpolDefault = 0, kMpolPreferred = 1, kMpolBind = 2, kMpolInterleave = 3, kMpolLocal = 4,
              kMpolPreferredMany = 5, kMpolWeightedInterleave = 6;
constexpr int kFlagStatic = 1 << 15, kFlagRelative = 1 << 14, kFlagBalancing = 1 << 13;
constexpr int kFlags = kFlagStatic | kFlagRelative | kFlagBalancing;

/// The kernel's names in numa_maps (mm/mempolicy.c, policy_modes[]), by mode.
constexpr const char* kKernelNames[] = {
    "default", "prefer", "bind", "interleave", "local", "prefer (many)", "weighted interleave"};
constexpr int kKernelNameCount = sizeof(kKernelNames) / sizeof(kKernelNames[0]);

std::string BitsToList(const unsigned long* words, size_t nbits) {
  std::string out;
  const size_t per = sizeof(unsigned long) * 8;
  size_t i = 0;
  while (i < nbits) {
    if (!(words[i / per] >> (i % per) & 1UL)) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j + 1 < nbits && (words[(j + 1) / per] >> ((j + 1) % per) & 1UL)) ++j;
    if (!out.empty()) out += ",";
    out += std::to_string(i);
    if (j > i) out += "-" + std::to_string(j);
    i = j + 1;
  }
  return out;
}

}  // namespace

std::string MemoryPolicyText(int mode_and_flags, const std::string& nodes) {
  using config::MemoryKind;
  int flags = mode_and_flags & kFlags;
  int mode = mode_and_flags & ~kFlags;
  std::string name;
  switch (mode) {
    case kMpolDefault:  // no policy of its own: the kernel's first touch, which NUMABIND_MEMORY calls local
    case kMpolLocal: return config::MemoryName(MemoryKind::kLocal);
    case kMpolPreferred:
      if (nodes.empty()) return config::MemoryName(MemoryKind::kLocal);  // older kernels' MPOL_LOCAL
      name = config::MemoryName(MemoryKind::kPreferred);
      break;
    case kMpolPreferredMany:  // what NUMABIND_MEMORY=preferred applies over several nodes, and near
      name = config::MemoryName(MemoryKind::kPreferred);
      break;
    case kMpolBind: name = config::MemoryName(MemoryKind::kBind); break;
    case kMpolInterleave: name = config::MemoryName(MemoryKind::kInterleave); break;
    case kMpolWeightedInterleave: name = config::MemoryName(MemoryKind::kWeighted); break;
    default: name = "mode-" + std::to_string(mode); break;
  }
  if (flags != 0) {
    name += "=";
    if (flags & kFlagStatic)
      name += "static";
    else if (flags & kFlagRelative)
      name += "relative";
    if (flags & kFlagBalancing) name += std::string((flags & ~kFlagBalancing) ? "|" : "") + "balancing";
  }
  if (!nodes.empty()) name += ":" + nodes;
  return name;
}

std::string OwnMemoryPolicy() {
  constexpr size_t kBits = 4096;
  unsigned long mask[kBits / (8 * sizeof(unsigned long))] = {0};
  int mode = 0;
  if (syscall(SYS_get_mempolicy, &mode, mask, kBits, nullptr, 0UL) != 0) {
    return std::string("? (get_mempolicy: ") + strerror(errno) + ")";
  }
  return MemoryPolicyText(mode, BitsToList(mask, kBits));
}

std::string NumaMapsPolicy(const std::string& maps) {
  std::string line = maps.substr(0, maps.find('\n'));
  size_t sp = line.find(' ');
  if (sp == std::string::npos) return "?";
  std::string rest = line.substr(sp + 1);
  // The longest name that starts the field: "prefer (many)" before "prefer".
  int mode = -1;
  size_t len = 0;
  for (int m = 0; m < kKernelNameCount; ++m) {
    size_t n = strlen(kKernelNames[m]);
    if (n > len && rest.compare(0, n, kKernelNames[m]) == 0 &&
        (rest.size() == n || rest[n] == ' ' || rest[n] == ':' || rest[n] == '=')) {
      mode = m, len = n;
    }
  }
  if (mode < 0) return rest.substr(0, rest.find(' '));  // a name this command does not know: as written
  std::string tail = rest.substr(len, rest.find(' ', len) - len);  // "=static:0-1", ":0", ""
  int flags = 0;
  if (tail[0] == '=') {
    std::string f = tail.substr(1, tail.find(':') - 1);
    if (f.find("static") != std::string::npos) flags |= kFlagStatic;
    if (f.find("relative") != std::string::npos) flags |= kFlagRelative;
    if (f.find("balancing") != std::string::npos) flags |= kFlagBalancing;
  }
  size_t colon = tail.find(':');
  return MemoryPolicyText(mode | flags, colon == std::string::npos ? "" : tail.substr(colon + 1));
}

}  // namespace numabind::cli
