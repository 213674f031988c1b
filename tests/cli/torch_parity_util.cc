// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0

#include "tests/cli/torch_parity_util.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>

#include "cli/cli.h"
#include "planner/planner.h"

namespace numabind::testing {
using namespace numabind::plan;     // NOLINT: test brevity
using namespace numabind::planner;  // NOLINT: test brevity

namespace {

// An hwloc bitmap: 32-bit words, most significant first ("0x0000ffff,0xffffffff").
std::string Mask(const std::vector<uint32_t>& bits) {
  if (bits.empty()) return "0x0";
  uint32_t top = *std::max_element(bits.begin(), bits.end());
  std::vector<uint32_t> words(top / 32 + 1, 0);
  for (uint32_t b : bits) words[b / 32] |= 1u << (b % 32);
  std::string s;
  for (size_t i = words.size(); i-- > 0;) {
    char w[16];
    snprintf(w, sizeof w, "0x%08x", words[i]);
    s += (s.empty() ? "" : ",") + std::string(w);
  }
  return s;
}

std::vector<uint32_t> Pus(const MockMachine::L3& c) {
  std::vector<uint32_t> v;
  for (const auto& core : c.cores) v.insert(v.end(), core.pus.begin(), core.pus.end());
  return v;
}

std::vector<uint32_t> Pus(const MockMachine::Node& n) {
  std::vector<uint32_t> v;
  for (const auto& c : n.l3s) {
    std::vector<uint32_t> p = Pus(c);
    v.insert(v.end(), p.begin(), p.end());
  }
  return v;
}

struct Writer {
  std::string xml;
  int gp = 1;
  void Open(int depth, const std::string& head, const std::vector<uint32_t>& cpus,
            const std::vector<uint32_t>& nodes, const std::string& tail, bool leaf) {
    std::string c = Mask(cpus), n = Mask(nodes);
    xml += std::string(depth * 2, ' ') + "<object " + head + " cpuset=\"" + c + "\" complete_cpuset=\"" + c +
           "\" nodeset=\"" + n + "\" complete_nodeset=\"" + n + "\" gp_index=\"" + std::to_string(gp++) +
           "\"" + tail + (leaf ? "/>\n" : ">\n");
  }
  void Close(int depth) { xml += std::string(depth * 2, ' ') + "</object>\n"; }
  // A host bridge with one NVIDIA 3D controller (class 0302) behind it.
  void Gpu(int depth, const std::string& bus_id) {
    std::string ind(depth * 2, ' '), bus = bus_id.substr(5, 2);
    xml += ind + "<object type=\"Bridge\" gp_index=\"" + std::to_string(gp++) +
           "\" bridge_type=\"0-1\" depth=\"0\"" + " bridge_pci=\"" + bus_id.substr(0, 5) + "[" + bus + "-" +
           bus + "]\">\n";
    xml += ind + "  <object type=\"PCIDev\" gp_index=\"" + std::to_string(gp++) + "\" pci_busid=\"" + bus_id +
           "\" pci_type=\"0302 [10de:20b0] [10de:1450] a1\"/>\n";
    xml += ind + "</object>\n";
  }
  void Node(int d, const MockMachine::Node& n) {
    std::vector<uint32_t> nn{n.os};
    Leaf(d, "type=\"NUMANode\" os_index=\"" + std::to_string(n.os) + "\"", Pus(n), nn,
         " local_memory=\"1073741824\"");
    for (const auto& c : n.l3s) {
      Open(d, "type=\"L3Cache\"", Pus(c), nn,
           " cache_size=\"33554432\" depth=\"3\" cache_linesize=\"64\" cache_associativity=\"16\" "
           "cache_type=\"0\"",
           false);
      for (const auto& core : c.cores) {
        Open(d + 1, "type=\"L2Cache\"", core.pus, nn,
             " cache_size=\"1048576\" depth=\"2\" cache_linesize=\"64\" cache_associativity=\"8\" "
             "cache_type=\"0\"",
             false);
        Open(d + 2, "type=\"Core\" os_index=\"" + std::to_string(core.pus[0]) + "\"", core.pus, nn, "",
             false);
        for (uint32_t pu : core.pus)
          Leaf(d + 3, "type=\"PU\" os_index=\"" + std::to_string(pu) + "\"", {pu}, nn, "");
        Close(d + 2);
        Close(d + 1);
      }
      Close(d);
    }
    for (const std::string& g : n.gpus) Gpu(d, g);
  }
  // A leaf object.
  void Leaf(int depth, const std::string& head, const std::vector<uint32_t>& cpus,
            const std::vector<uint32_t>& nodes, const std::string& tail) {
    Open(depth, head, cpus, nodes, tail, true);
  }
};

}  // namespace

std::string TorchBusId(int i) {
  char id[32];
  snprintf(id, sizeof id, "%04x:%02x:%02x.0", i, i, i);
  return id;
}

MockMachine TorchMockHardware(int sockets, int nodes_per_socket, int gpus_per_node, int l3_per_node,
                              int cores_per_l3) {
  MockMachine m;
  uint32_t cpu = 0, node = 0;
  int gpu = 0;
  for (int s = 0; s < sockets; ++s) {
    MockMachine::Package p;
    for (int n = 0; n < nodes_per_socket; ++n) {
      MockMachine::Node nd;
      nd.os = node++;
      for (int g = 0; g < gpus_per_node; ++g) nd.gpus.push_back(TorchBusId(gpu++));
      for (int l = 0; l < l3_per_node; ++l) {
        MockMachine::L3 c;
        for (int k = 0; k < cores_per_l3; ++k, cpu += 2) c.cores.push_back({{cpu, cpu + 1}});
        nd.l3s.push_back(c);
      }
      p.nodes.push_back(nd);
    }
    m.packages.push_back(p);
  }
  return m;
}

std::string MockXml(const MockMachine& m) {
  Writer w;
  std::vector<uint32_t> all, nodes;
  for (const auto& p : m.packages)
    for (const auto& n : p.nodes) {
      std::vector<uint32_t> v = Pus(n);
      all.insert(all.end(), v.begin(), v.end());
      nodes.push_back(n.os);
    }
  w.xml =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n"
      "<topology version=\"2.0\">\n";
  w.Open(1, "type=\"Machine\" os_index=\"0\"", all, nodes,
         " allowed_cpuset=\"" + Mask(m.allowed.empty() ? all : m.allowed) + "\" allowed_nodeset=\"" +
             Mask(nodes) + "\"",
         false);
  for (size_t pi = 0; pi < m.packages.size(); ++pi) {
    const auto& p = m.packages[pi];
    std::vector<uint32_t> pcpus, pnodes;
    for (const auto& n : p.nodes) {
      std::vector<uint32_t> v = Pus(n);
      pcpus.insert(pcpus.end(), v.begin(), v.end());
      pnodes.push_back(n.os);
    }
    w.Open(2, "type=\"Package\" os_index=\"" + std::to_string(pi) + "\"", pcpus, pnodes, "", false);
    for (const auto& n : p.nodes) {
      if (p.nodes.size() == 1) {
        w.Node(3, n);
        continue;
      }
      w.Open(3, "type=\"Group\"", Pus(n), {n.os}, "", false);
      w.Node(4, n);
      w.Close(3);
    }
    w.Close(2);
  }
  for (const std::string& g : m.unlocated_gpus) w.Gpu(2, g);
  w.Close(1);
  w.xml += "</topology>\n";
  return w.xml;
}

MockXmlFile::MockXmlFile(const MockMachine& m) {
  // A memfd read through /proc/self/fd: nothing is left behind when a failed assertion ends the test's
  // process before the destructor runs.
  fd = memfd_create("numabind-torch-parity.xml", 0);
  cr_assert(fd >= 0, "memfd_create failed");
  std::string xml = MockXml(m);
  cr_assert(write(fd, xml.data(), xml.size()) == static_cast<ssize_t>(xml.size()), "cannot write the XML");
  path = "/proc/self/fd/" + std::to_string(fd);
}

MockXmlFile::~MockXmlFile() { close(fd); }

const char* const kNoEnv[] = {nullptr};

Prepared::Prepared(const MockXmlFile& xml, const char* policy, const char* const* env) {
  numabind::planner::PrepareRequest req;
  std::string err;
  cr_assert(numabind::planner::RequestFromText(policy, nullptr, "auto", &req, &err), "%s", err.c_str());
  req.topology = xml.path.c_str();
  req.env = env;
  basis = numabind::planner::Prepare(req, &err);
  cr_assert(basis != nullptr, "planner::Prepare(%s) failed: %s", policy, err.c_str());
}

Prepared::~Prepared() { free(const_cast<PlanBasis*>(basis)); }

std::string Prepared::All(uint32_t n) const {
  std::string s;
  for (uint32_t r = 0; r < n; ++r) {
    RankText t = Rank(r, n);
    s += (r ? " | " : "") + (t.ok ? t.cpus : "!");
  }
  return s;
}

void ExpectRank(const Prepared& p, uint32_t r, uint32_t n, const char* cpus, const char* nodes) {
  RankText t = p.Rank(r, n);
  cr_assert(t.ok, "rank %u: %s", r, t.error.c_str());
  STR_EQ(t.cpus, cpus);
  STR_EQ(t.nodes, nodes);
  STR_EQ(t.device, TorchBusId(static_cast<int>(r)));
}

int RunPlan(const std::vector<std::string>& args, std::string* out, std::string* err) {
  char *obuf = nullptr, *ebuf = nullptr;
  size_t olen = 0, elen = 0;
  FILE* o = open_memstream(&obuf, &olen);
  FILE* e = open_memstream(&ebuf, &elen);
  int rc = numabind::cli::PlanCommand(args, kNoEnv, o, e);
  fclose(o);
  fclose(e);
  *out = obuf;
  *err = ebuf;
  free(obuf);
  free(ebuf);
  return rc;
}

}  // namespace numabind::testing
