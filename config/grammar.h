// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The grammar of the values that both the library and the command read: NUMABIND_POLICY (keywords and
// cpus:/nodes: maps) and PCI bus ids (NUMABIND_DEVICES). One parser each, here: config::Parse checks
// with it, and the planner builds its plan from what it yields, so `numabind plan` accepts exactly what a
// launch does. Allocation-free (compiled into the shim); strict: no spaces, no signs, decimal ids, hex bus
// ids.

#ifndef NUMABIND_CONFIG_GRAMMAR_H_
#define NUMABIND_CONFIG_GRAMMAR_H_

#include <stddef.h>
#include <stdint.h>

namespace numabind::config {

constexpr uint32_t kMaxCpuId = 65535;
constexpr uint32_t kMaxNodeId = 1023;
/// The most entries a map expands to, after *N repeats (a bound on the planner's time and memory).
constexpr uint32_t kMaxMapEntries = 4096;

enum class PolicyForm : uint8_t { kNode, kSocket, kExclusive, kCoreComplex, kCpuMap, kNodeMap, kAuto };

struct PolicyText {
  PolicyForm form = PolicyForm::kNode;
  const char* map = nullptr;  ///< maps: the text after "cpus:" or "nodes:"
  uint32_t entries = 0;       ///< maps: entries after *N repeats
};

/// Decimal digits s[0..n) into *out; false when empty, not all digits or above `max`. The one reading of a
/// decimal number in the variables (ranks, counts, CPU and node ids, repeats).
bool ParseDecimal(const char* s, size_t n, uint32_t max, uint32_t* out);

/// Parses a NUMABIND_POLICY value. On failure writes why into why[0..cap) (the text that follows
/// "NUMABIND_POLICY=VALUE: ", e.g. "entry 2 (x): expected a list of CPU numbers such as 0-3,8, ...").
bool ParsePolicyText(const char* value, PolicyText* out, char* why, size_t cap);

/// The entries of a map that ParsePolicyText accepted, in order: Next gives each entry's list of ranges
/// and its repeat count.
class MapEntries {
 public:
  explicit MapEntries(const PolicyText& policy) : p_(policy.map) {}
  bool Next(const char** list, const char** list_end, uint32_t* repeat);

 private:
  const char* p_;
};

/// The ranges of one entry's list ("0-3,8"): Next gives lo and hi (equal for a single number).
class Ranges {
 public:
  Ranges(const char* list, const char* end) : p_(list), end_(end) {}
  bool Next(uint32_t* lo, uint32_t* hi);

 private:
  const char* p_;
  const char* end_;
};

/// A PCI address: "[domain:]bus:device.function" in hex (any case), as lspci -D and sysfs write it:
/// domain 1 to 8 digits (VMD domains are 5), bus 1-2 digits, device 1-2 digits up to 1f, function 0-7.
struct BusId {
  uint32_t domain = 0, bus = 0, dev = 0, func = 0;
};
bool ParseBusId(const char* s, size_t n, BusId* out);

/// NUMABIND_EXPORT: what a bound rank's environment gets (bits of ParseExportText's result).
constexpr uint8_t kExportOmp = 1;      ///< OMP_NUM_THREADS, OMP_PLACES, OMP_PROC_BIND
constexpr uint8_t kExportOmpCpus = 2;  ///< with kExportOmp: one place per CPU instead of per core
constexpr uint8_t kExportGpu = 4;      ///< CUDA_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES narrowed
constexpr uint8_t kExportNic = 8;      ///< NCCL_IB_HCA, UCX_NET_DEVICES

/// Parses a NUMABIND_EXPORT value: "none" or a comma list of omp, omp-cpus (implies omp), gpu and nic, no
/// spaces, each at most once. "" is none. On failure writes why into why[0..cap) ("unknown item ompp:
/// expected none or a comma list of omp, omp-cpus, gpu, nic").
bool ParseExportText(const char* value, uint8_t* out, char* why, size_t cap);

}  // namespace numabind::config

#endif  // NUMABIND_CONFIG_GRAMMAR_H_
