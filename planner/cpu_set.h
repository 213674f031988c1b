// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A set of CPU (or NUMA node) numbers of any size: machines with more than 1024 CPUs exist, so nothing here
// is bounded by glibc's cpu_set_t. Bit i of word i/64 is number i, the layout sched_setaffinity and
// set_mempolicy take, so a set's words can be handed to the kernel as they are.
//
// Text forms: the Linux list syntax ("0-3,8,10-11", as in Cpus_allowed_list and sysfs cpulist) and the
// kernel's hex mask ("ff,ffffffff", as in Cpus_allowed: 32-bit groups, most significant first; hwloc's
// "0x000000ff,0xffffffff" with empty groups for zero is read too).

#ifndef NUMABIND_PLANNER_CPU_SET_H_
#define NUMABIND_PLANNER_CPU_SET_H_

#include <stdint.h>

#include <string>
#include <vector>

#include "config/limits.h"

namespace numabind::planner {

class CpuSet {
 public:
  /// The largest number a parsed set may hold, plus one (config/limits.h).
  static constexpr uint32_t kMaxBits = config::kMaxSetBits;

  CpuSet() = default;
  /// The set {first..last}; empty when last < first.
  static CpuSet Range(uint32_t first, uint32_t last);
  /// The set whose bits are `words[0 .. nwords)`.
  static CpuSet FromWords(const uint64_t* words, uint32_t nwords);

  void Set(uint32_t i);
  void SetRange(uint32_t first, uint32_t last);
  void Clear(uint32_t i);
  /// Membership (named Has, not Test: Criterion defines a Test macro).
  bool Has(uint32_t i) const;

  uint32_t Count() const;
  bool Empty() const;
  /// The lowest member, or -1 when empty.
  int64_t First() const;
  /// The highest member, or -1 when empty.
  int64_t Last() const;
  /// The lowest member greater than `after`, or -1. Next(-1) == First().
  int64_t Next(int64_t after) const;

  /// New sets.
  CpuSet Union(const CpuSet& other) const;
  CpuSet Intersect(const CpuSet& other) const;
  CpuSet Minus(const CpuSet& other) const;
  /// In place; return *this.
  CpuSet& UnionWith(const CpuSet& other);
  CpuSet& IntersectWith(const CpuSet& other);
  CpuSet& Subtract(const CpuSet& other);

  bool Intersects(const CpuSet& other) const;
  bool IsSubsetOf(const CpuSet& other) const;
  /// Same members (trailing zero words do not matter).
  bool operator==(const CpuSet& other) const;
  bool operator!=(const CpuSet& other) const { return !(*this == other); }

  /// The members in increasing order.
  std::vector<uint32_t> Members() const;

  /// Words needed to hold the highest member (0 when empty).
  uint32_t UsedWords() const;
  /// Storage words (may include trailing zero words).
  uint32_t WordCount() const { return static_cast<uint32_t>(words_.size()); }
  const uint64_t* Words() const { return words_.data(); }
  /// Writes the set into out[0 .. nwords), zero-padded; members >= 64*nwords are dropped.
  void CopyTo(uint64_t* out, uint32_t nwords) const;

  /// "0-3,8,10-11"; "" when empty.
  std::string ToList() const;
  /// The kernel's hex mask: 32-bit groups of 8 hex digits separated by commas, most significant first.
  /// With nbits == 0 the first group has no leading zeros ("ff,ffffffff"; "0" when empty); with nbits > 0
  /// the mask covers nbits bits as /proc's Cpus_allowed prints it for nr_cpu_ids == nbits.
  std::string ToHex(uint32_t nbits = 0) const;

  /// Parses the list syntax: comma-separated numbers and ranges "a-b"; spaces and a trailing newline are
  /// ignored; "" is the empty set. Returns false with a reason in *err.
  static bool ParseList(const char* text, CpuSet* out, std::string* err);
  /// Parses a hex mask: groups of hex digits separated by commas, most significant first, each optionally
  /// "0x"-prefixed; an empty group is zero (hwloc's ",,"); a mask without commas may be of any length.
  static bool ParseHex(const char* text, CpuSet* out, std::string* err);

 private:
  void Grow(uint32_t nwords);
  std::vector<uint64_t> words_;
};

/// NUMA node sets have the same representation.
using NodeSet = CpuSet;

}  // namespace numabind::planner

#endif  // NUMABIND_PLANNER_CPU_SET_H_
