// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0

#include "planner/gpu_uuids.h"

#include <stdio.h>
#include <string.h>

#include "plan/plan_basis.h"
#include "planner/devices.h"

namespace numabind::planner {

namespace {

/// The value of the first line of `path` that starts with `key`, blanks around it dropped; "" when there
/// is none or the file cannot be read.
std::string Field(const std::string& path, const char* key) {
  FILE* f = fopen(path.c_str(), "re");
  if (f == nullptr) return "";
  char line[512];
  std::string value;
  size_t n = strlen(key);
  while (value.empty() && fgets(line, sizeof line, f) != nullptr) {
    if (strncmp(line, key, n) != 0) continue;
    const char* b = line + n;
    while (*b == ' ' || *b == '\t') ++b;
    const char* e = b + strlen(b);
    while (e > b && (e[-1] == '\n' || e[-1] == ' ' || e[-1] == '\t')) --e;
    value.assign(b, e);
  }
  fclose(f);
  return value;
}

}  // namespace

std::string AmdUuid(const std::string& hex) {
  if (hex.empty() || hex.size() > 16 || hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
    return "";
  std::string id = "GPU-" + std::string(16 - hex.size(), '0') + hex;
  for (char& c : id) c = static_cast<char>(c >= 'A' && c <= 'F' ? c - 'A' + 'a' : c);
  return id;
}

void ReadDriverUuids(const std::string& root, Topology* topo) {
  std::string base = root.empty() || root.back() == '/' ? root : root + "/";
  for (PciDevice& d : topo->pci) {
    if (!d.uuid.empty() || !IsAccelerator(d)) continue;
    if (d.vendor == plan::kPciNvidia) {
      std::string id = Field(base + "proc/driver/nvidia/gpus/" + d.bus_id + "/information", "GPU UUID:");
      // Before the GPU is initialized the driver may write "GPU-????????-...": no UUID then.
      bool ok = id.size() > 4 && id.compare(0, 4, "GPU-") == 0 &&
                id.find_first_not_of("0123456789abcdefABCDEF-", 4) == std::string::npos;
      if (ok) d.uuid = id;
    } else if (d.vendor == plan::kPciAmd) {
      d.uuid = AmdUuid(Field(base + "sys/bus/pci/devices/" + d.bus_id + "/unique_id", ""));
    }
  }
}

}  // namespace numabind::planner
