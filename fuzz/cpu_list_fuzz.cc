// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// CPU and node lists (planner/cpu_set.cc): the list syntax ("0-3,8") and the kernel's hex mask
// ("ff,ffffffff"), as read from NUMABIND_POLICY maps, sysfs and /proc. Beyond not crashing: a parsed set
// stays below CpuSet::kMaxBits, formats back to text that parses to the same set (list, hex and /proc-width
// hex), and the shim's child-side formatter (FormatBitList) writes exactly what CpuSet::ToList does.

#include <string>

#include "fuzz/fuzz_util.h"
#include "plan/plan_basis.h"
#include "planner/cpu_set.h"

namespace {

using numabind::planner::CpuSet;

void CheckHex(const CpuSet& set, const std::string& input) {
  CpuSet again;
  std::string err;
  std::string hex = set.ToHex();
  FUZZ_CHECK(CpuSet::ParseHex(hex.c_str(), &again, &err) && again == set, "input \"%s\": hex \"%s\": %s",
             input.c_str(), hex.c_str(), err.c_str());
  uint32_t nbits = static_cast<uint32_t>(set.Last() + 1);
  hex = set.ToHex(nbits);
  FUZZ_CHECK(CpuSet::ParseHex(hex.c_str(), &again, &err) && again == set,
             "input \"%s\": hex for %u bits \"%s\": %s", input.c_str(), nbits, hex.c_str(), err.c_str());
}

void CheckSet(const CpuSet& set, const std::string& input) {
  FUZZ_CHECK(set.Last() < static_cast<int64_t>(CpuSet::kMaxBits), "input \"%s\": member %lld", input.c_str(),
             static_cast<long long>(set.Last()));
  // The whole-set checks below cost about a second per set of millions of CPUs under the sanitizers; they
  // run on sets up to kCheapBits (every machine's /proc mask is far smaller), the list checks on all.
  constexpr int64_t kCheapBits = 1 << 16;
  bool cheap = set.Last() < kCheapBits;
  if (cheap) FUZZ_CHECK(set.Count() == set.Members().size(), "input \"%s\"", input.c_str());

  std::string list = set.ToList();
  CpuSet again;
  std::string err;
  FUZZ_CHECK(CpuSet::ParseList(list.c_str(), &again, &err) && again == set, "input \"%s\": list \"%s\": %s",
             input.c_str(), list.c_str(), err.c_str());

  if (cheap) CheckHex(set, input);

  // The child-side formatter: the same text, and the length it reports when the buffer is too small.
  std::string buf(list.size() + 1, '\xff');
  size_t need = numabind::plan::FormatBitList(set.Words(), set.WordCount(), &buf[0], buf.size());
  FUZZ_CHECK(need == list.size() && buf.c_str() == list, "input \"%s\": FormatBitList \"%s\", ToList \"%s\"",
             input.c_str(), buf.c_str(), list.c_str());
  if (!list.empty()) {
    char small[8];
    need = numabind::plan::FormatBitList(set.Words(), set.WordCount(), small, sizeof(small));
    FUZZ_CHECK(need == list.size() && list.compare(0, std::string(small).size(), small) == 0,
               "input \"%s\": truncated FormatBitList \"%s\"", input.c_str(), small);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text = numabind::fuzz::AsText(data, size);
  CpuSet set;
  std::string err;
  if (CpuSet::ParseList(text.c_str(), &set, &err))
    CheckSet(set, text);
  else
    FUZZ_CHECK(!err.empty(), "input \"%s\": list rejected without a reason", text.c_str());
  err.clear();
  if (CpuSet::ParseHex(text.c_str(), &set, &err))
    CheckSet(set, text);
  else
    FUZZ_CHECK(!err.empty(), "input \"%s\": hex rejected without a reason", text.c_str());
  return 0;
}
