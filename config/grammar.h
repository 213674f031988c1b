// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The grammar of the values that both the library and the command read: NUMABIND_POLICY (keywords and
// cpus:/nodes: maps), NUMABIND_MEMORY, NUMABIND_DEVICES (PCI bus ids), NUMABIND_EXPORT, and the lists of
// numbers and ranges the kernel writes. One parser each, here: config::Parse reads the variables with it
// into typed values, and the planner builds its plan from those values (it parses nothing again), so
// `numabind plan` accepts exactly what a launch does. Allocation-free (compiled into the shim); strict: no
// spaces, no signs, decimal ids, hex bus ids.

#ifndef NUMABIND_CONFIG_GRAMMAR_H_
#define NUMABIND_CONFIG_GRAMMAR_H_

#include <stddef.h>
#include <stdint.h>

#include "config/limits.h"

namespace numabind::config {

/// How ranks are given CPUs (NUMABIND_POLICY); names as in `torchrun --numa-binding` where it defines
/// them. The one policy enum: the planner and the basis (plan/plan_basis.h) use it as config::PolicyKind.
enum class PolicyKind : uint8_t {
  kNode,         ///< every allowed CPU of the rank's NUMA node
  kSocket,       ///< every allowed CPU of the package holding that node
  kExclusive,    ///< a contiguous slice of that node's physical cores, shared out among its ranks
  kCoreComplex,  ///< one last-level cache domain of that node per rank, wrapping
  kCpuMap,       ///< explicit `cpus:A|B|...`, entry rank mod count
  kNodeMap,      ///< explicit `nodes:A|B|...`, entry rank mod count
  kAuto,         ///< zero configuration: the group's nodes, caches, cores, threads shared out (plan_auto.h)
};

/// A parsed NUMABIND_POLICY. Pointers into the value parsed; text is nullptr when unset.
struct Policy {
  PolicyKind kind = PolicyKind::kNode;
  const char* text = nullptr;  ///< as written
  const char* map = nullptr;   ///< maps: the text after "cpus:" or "nodes:" (walk it with MapEntries)
  uint32_t entries = 0;        ///< maps: entries after *N repeats
};

/// NUMABIND_MEMORY: the memory policy applied with set_mempolicy over the rank's nodes.
enum class MemoryKind : uint8_t {
  kLocal,       ///< MPOL_DEFAULT: the kernel's first touch
  kPreferred,   ///< MPOL_PREFERRED on the first node (MPOL_PREFERRED_MANY when several, where supported)
  kBind,        ///< MPOL_BIND
  kInterleave,  ///< MPOL_INTERLEAVE
  /// MPOL_PREFERRED_MANY (Linux 5.15) over the rank's nodes and the memory-only nodes of its socket nearest
  /// them (HBM, CXL); MPOL_PREFERRED on the rank's own node before 5.15
  kNear,
  /// MPOL_WEIGHTED_INTERLEAVE (Linux 6.9, the kernel's weights) over the same nodes as kNear; plain
  /// MPOL_INTERLEAVE before 6.9
  kWeighted,
};

/// NUMABIND_DEVICES: auto, none, or a list of bus ids (walk `list` with BusIds).
enum class DeviceMode : uint8_t { kAuto, kNone, kList };
struct Devices {
  DeviceMode mode = DeviceMode::kAuto;
  const char* text = "auto";   ///< as written
  const char* list = nullptr;  ///< kList: the comma list of bus ids
  uint32_t count = 0;          ///< kList: how many
};

/// Decimal digits s[0..n) into *out; false when empty, not all digits or above `max`. The one reading of a
/// decimal number in the variables (ranks, counts, repeats), on base::ScanDecimal.
bool ParseDecimal(const char* s, size_t n, uint32_t max, uint32_t* out);

/// Parses a NUMABIND_POLICY value. On failure writes why into why[0..cap) (the text that follows
/// "NUMABIND_POLICY=VALUE: ", e.g. "entry 2 (x): expected a list of CPU numbers such as 0-3,8, ...").
bool ParsePolicyText(const char* value, Policy* out, char* why, size_t cap);

/// The NUMABIND_MEMORY word of `kind` ("local", ...). Child-safe: returns a string literal.
const char* MemoryName(MemoryKind kind);

/// Parses a NUMABIND_DEVICES value. On failure writes why into why[0..cap).
bool ParseDevicesText(const char* value, Devices* out, char* why, size_t cap);

/// The entries of a map that ParsePolicyText accepted, in order: Next gives each entry's list of ranges
/// and its repeat count.
class MapEntries {
 public:
  explicit MapEntries(const Policy& policy) : p_(policy.map) {}
  bool Next(const char** list, const char** list_end, uint32_t* repeat);

 private:
  const char* p_;
};

/// Why a list of numbers and ranges did not read.
enum class ListFault : uint8_t {
  kNone,
  kNoNumber,  ///< a number was expected (at the start, after a ',')
  kNoNumberAfterDash,
  kTrailingComma,  ///< the list ends with ','
  kBadChar,        ///< something other than ',' after a number or range
  kGoesDown,       ///< "5-3"
  kTooLarge,       ///< a number above the reader's max
};

/// The one reading of a list of numbers and ranges ("0-3,8,10-11"): NUMABIND_POLICY's map entries (strict)
/// and the kernel's lists (sysfs cpulist, Cpus_allowed_list; `spaces`: blanks around numbers and a
/// trailing newline are ignored). An empty list (blanks only, with `spaces`) has no ranges and no fault.
class Ranges {
 public:
  Ranges(const char* list, const char* end, uint32_t max = 0xffffffffu, bool spaces = false);
  /// The next range, lo and hi (equal for a single number); false at the end or at a fault.
  bool Next(uint32_t* lo, uint32_t* hi);
  ListFault fault() const { return fault_; }
  /// Where the range last read (or the one that faulted) starts; at() is where reading stopped.
  const char* range_start() const { return start_; }
  const char* at() const { return p_; }

 private:
  bool Fail(ListFault f);
  void SkipSpaces();
  const char* p_;
  const char* end_;
  const char* start_;
  uint32_t max_;
  bool spaces_;
  bool first_ = true;
  ListFault fault_ = ListFault::kNone;
};

/// A PCI address: "[domain:]bus:device.function" in hex (any case), as lspci -D and sysfs write it:
/// domain 1 to 8 digits (VMD domains are 5), bus 1-2 digits, device 1-2 digits up to 1f, function 0-7.
struct BusId {
  uint32_t domain = 0, bus = 0, dev = 0, func = 0;
};
bool ParseBusId(const char* s, size_t n, BusId* out);
/// The one writing of a bus id, as sysfs and lspci -D write it: "0000:34:00.0" (lowercase hex, the domain
/// at least 4 digits). Writes it and a NUL into out[kBusIdTextMax]; returns its length.
constexpr size_t kBusIdTextMax = 8 + 1 + 2 + 1 + 2 + 1 + 1 + 1;
size_t FormatBusId(const BusId& id, char* out);

/// The bus ids of a NUMABIND_DEVICES list that ParseDevicesText accepted, in order.
class BusIds {
 public:
  explicit BusIds(const Devices& devices) : p_(devices.list) {}
  bool Next(BusId* id);

 private:
  const char* p_;
};

/// NUMABIND_EXPORT: what a bound rank's environment gets (bits of ParseExportText's result).
constexpr uint8_t kExportOmp = 1;      ///< OMP_NUM_THREADS, OMP_PLACES, OMP_PROC_BIND
constexpr uint8_t kExportOmpCpus = 2;  ///< with kExportOmp: one place per CPU instead of per core
constexpr uint8_t kExportGpu = 4;      ///< CUDA_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES narrowed
constexpr uint8_t kExportNic = 8;      ///< NCCL_IB_HCA, UCX_NET_DEVICES

/// NUMABIND_EXPORT's words and their bits, spelled here only: X(NAME, BITS) for each, SEP between them.
/// ParseExportText's table, the values config/vars.def shows and every text that lists them are made of it.
#define NUMABIND_EXPORT_WORDS(X, SEP)                                                    \
  X("omp", ::numabind::config::kExportOmp)                                               \
  SEP X("omp-cpus", ::numabind::config::kExportOmp | ::numabind::config::kExportOmpCpus) \
      SEP X("gpu", ::numabind::config::kExportGpu) SEP X("nic", ::numabind::config::kExportNic)
#define NUMABIND_EXPORT_NAME(name, bits) name
/// "omp,omp-cpus,gpu,nic" (a value's form) and "omp, omp-cpus, gpu, nic" (prose).
#define NUMABIND_EXPORT_LIST NUMABIND_EXPORT_WORDS(NUMABIND_EXPORT_NAME, ",")
#define NUMABIND_EXPORT_PROSE NUMABIND_EXPORT_WORDS(NUMABIND_EXPORT_NAME, ", ")

/// Parses a NUMABIND_EXPORT value: "none" or a comma list of omp, omp-cpus (implies omp), gpu and nic, no
/// spaces, each at most once. "" is none. On failure writes why into why[0..cap) ("unknown item ompp:
/// expected none or a comma list of omp, omp-cpus, gpu, nic").
bool ParseExportText(const char* value, uint8_t* out, char* why, size_t cap);

/// NUMABIND_MOVE: "auto" (kMoveAuto, config/config.h), "off" (0), or a size: digits, optionally K, M or G
/// (powers of 1024), above 0 and at most 1 PiB. Child-safe.
bool ParseMoveBudget(const char* value, uint64_t* bytes);

}  // namespace numabind::config

#endif  // NUMABIND_CONFIG_GRAMMAR_H_
