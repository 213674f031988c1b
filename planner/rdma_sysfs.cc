// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0

#include "planner/rdma_sysfs.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>

#include "planner/devices.h"

namespace numabind::planner {

namespace {

constexpr long kPortActive = 4;  // IB_PORT_ACTIVE: "4: ACTIVE" in ports/N/state

// The first line of a small sysfs file without its newline; false when it cannot be read.
bool ReadLine(const std::string& path, std::string* out) {
  FILE* f = fopen(path.c_str(), "re");
  if (!f) return false;
  char buf[256];
  bool ok = fgets(buf, sizeof buf, f) != nullptr;
  fclose(f);
  if (!ok) return false;
  *out = buf;
  while (!out->empty() && (out->back() == '\n' || out->back() == ' ')) out->pop_back();
  return true;
}

// The entries of a directory but "." and "..", sorted; none when it cannot be read.
std::vector<std::string> Entries(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  while (const dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") out.push_back(name);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

// The PCI function of a sysfs `device` link, "" when the link is missing or leads to none.
std::string FunctionOfLink(const std::string& link) {
  char real[PATH_MAX];
  if (!realpath(link.c_str(), real)) return "";
  return PciFunctionOf(real);
}

// Port numbers in numeric order: sysfs lists "10" before "2".
void ReadPorts(const std::string& dir, SysfsRdma* dev) {
  std::vector<std::pair<uint32_t, bool>> ports;  // port, usable
  for (const std::string& name : Entries(dir + "/ports")) {
    char* end = nullptr;
    unsigned long port = strtoul(name.c_str(), &end, 10);
    if (name.empty() || *end != '\0' || port == 0 || port > 255) continue;
    std::string state;
    bool usable = !ReadLine(dir + "/ports/" + name + "/state", &state) ||
                  strtol(state.c_str(), nullptr, 10) == kPortActive;
    ports.emplace_back(static_cast<uint32_t>(port), usable);
  }
  std::sort(ports.begin(), ports.end());
  for (const auto& [port, usable] : ports) (usable ? dev->ports : dev->down).push_back(port);
  if (ports.empty()) dev->ports.push_back(1);
}

}  // namespace

std::string PciFunctionOf(const std::string& path) {
  size_t end = path.size();
  while (end > 0) {
    size_t slash = path.rfind('/', end - 1);
    size_t start = slash == std::string::npos ? 0 : slash + 1;
    std::string part = path.substr(start, end - start), id;
    // Only the long form: "21:02.0" alone is no sysfs device directory.
    if (part.size() == 12 && NormalizeBusId(part, &id)) return id;
    if (slash == std::string::npos) break;
    end = slash;
  }
  return "";
}

std::vector<SysfsRdma> ReadSysfsRdma(const std::string& root) {
  std::vector<SysfsRdma> out;
  std::string sys = (root.empty() || root == "/" ? "" : root) + "/sys";
  for (const std::string& name : Entries(sys + "/class/infiniband")) {
    SysfsRdma dev;
    dev.name = name;
    std::string dir = sys + "/class/infiniband/" + name;
    dev.bus_id = FunctionOfLink(dir + "/device");
    if (ReadLine(dir + "/parent", &dev.netdev) && dev.bus_id.empty() && !dev.netdev.empty())
      dev.bus_id = FunctionOfLink(sys + "/class/net/" + dev.netdev + "/device");
    ReadPorts(dir, &dev);
    out.push_back(std::move(dev));
  }
  return out;
}

}  // namespace numabind::planner
