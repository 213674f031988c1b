// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_POLICY and NUMABIND_MEMORY texts, parsed for the planner (core/planner.h).

#include <string>
#include <vector>

#include "core/planner.h"

namespace numabind::core {
namespace {

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\n");
  return s.substr(b, e - b + 1);
}

// Parses the entries of a map after "cpus:" or "nodes:".
bool ParseMapEntries(const std::string& what, const std::string& body, std::vector<CpuSet>* entries,
                     std::string* err) {
  size_t start = 0;
  int index = 0;
  while (true) {
    size_t bar = body.find('|', start);
    std::string entry = Trim(body.substr(start, bar == std::string::npos ? std::string::npos : bar - start));
    ++index;
    std::string where = "NUMABIND_POLICY: " + what + " map entry " + std::to_string(index) + " \"" + entry + "\"";
    uint32_t repeat = 1;
    size_t star = entry.find('*');
    std::string list = Trim(entry.substr(0, star));
    if (star != std::string::npos) {
      std::string count = Trim(entry.substr(star + 1));
      if (count.empty() || count.size() > 6 || count.find_first_not_of("0123456789") != std::string::npos ||
          atoi(count.c_str()) < 1) {
        *err = where + ": the count after '*' must be a positive number";
        return false;
      }
      repeat = static_cast<uint32_t>(atoi(count.c_str()));
    }
    if (list.empty()) {
      *err = where + ": empty entry";
      return false;
    }
    CpuSet set;
    std::string why;
    if (!CpuSet::ParseList(list.c_str(), &set, &why)) {
      *err = where + ": " + why;
      return false;
    }
    if (set.Empty()) {  // blanks that Trim keeps and the list syntax skips ("cpus:\r")
      *err = where + ": empty entry";
      return false;
    }
    if (entries->size() + repeat > kMaxMapEntries) {
      *err = "NUMABIND_POLICY: more than " + std::to_string(kMaxMapEntries) + " map entries";
      return false;
    }
    entries->insert(entries->end(), repeat, set);
    if (bar == std::string::npos) break;
    start = bar + 1;
  }
  return true;
}

}  // namespace

bool ParsePolicy(const char* text, Policy* out, std::string* err) {
  *out = Policy();
  std::string s = Trim(text ? text : "");
  out->text = s;
  if (s.empty()) {
    *err = "NUMABIND_POLICY is empty: use node, socket, exclusive, core-complex, cpus:LIST|LIST... or "
           "nodes:LIST|LIST...";
    return false;
  }
  if (s == "node") {
    out->kind = PolicyKind::kNode;
  } else if (s == "socket") {
    out->kind = PolicyKind::kSocket;
  } else if (s == "exclusive") {
    out->kind = PolicyKind::kExclusive;
  } else if (s == "core-complex") {
    out->kind = PolicyKind::kCoreComplex;
  } else if (s.compare(0, 5, "cpus:") == 0) {
    out->kind = PolicyKind::kCpuMap;
    return ParseMapEntries("cpus", s.substr(5), &out->entries, err);
  } else if (s.compare(0, 6, "nodes:") == 0) {
    out->kind = PolicyKind::kNodeMap;
    return ParseMapEntries("nodes", s.substr(6), &out->entries, err);
  } else {
    *err = "NUMABIND_POLICY: unknown policy \"" + s +
           "\": use node, socket, exclusive, core-complex, cpus:LIST|LIST... or nodes:LIST|LIST...";
    return false;
  }
  return true;
}

bool ParseMemory(const char* text, MemoryKind* out, std::string* err) {
  std::string s = Trim(text ? text : "");
  if (s.empty() || s == "local") {
    *out = MemoryKind::kLocal;
  } else if (s == "preferred") {
    *out = MemoryKind::kPreferred;
  } else if (s == "bind") {
    *out = MemoryKind::kBind;
  } else if (s == "interleave") {
    *out = MemoryKind::kInterleave;
  } else {
    *err = "NUMABIND_MEMORY: unknown memory policy \"" + s + "\": use local, preferred, bind or interleave";
    return false;
  }
  return true;
}

}  // namespace numabind::core
