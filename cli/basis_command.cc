// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind prepare-basis`: the planner helper the shim runs once per launcher. Topology discovery needs
// hwloc and libstdc++; loading them into a launcher would make each of its later forks copy their mappings
// (about 10% on a fork+exec here) and could clash with a launcher's own hwloc, so the shim runs this command
// instead and reads the basis back over a pipe.

#include <stdlib.h>
#include <string.h>

#include <string>

#include "cli/cli.h"
#include "plan/basis_frame.h"
#include "planner/planner.h"

namespace numabind::cli {
namespace {

int WriteFrame(FILE* out, const char (&tag)[8], const void* data, uint64_t length) {
  plan::BasisFrameHeader header;
  memcpy(header.tag, tag, sizeof(header.tag));
  header.length = length;
  bool ok = fwrite(&header, sizeof(header), 1, out) == 1 && fwrite(data, 1, length, out) == length;
  return fflush(out) == 0 && ok ? 0 : kExitFailure;
}

}  // namespace

int PrepareBasisCommand(const Args& args, const char* const* env, FILE* out, FILE* err) {
  std::string values[5];  // policy, memory, devices, topology, nics
  static const char* const kNames[] = {"--policy", "--memory", "--devices", "--topology", "--nics"};
  for (size_t i = 0; i < args.size(); i += 2) {
    size_t k = 0;
    while (k < 5 && args[i] != kNames[k]) ++k;
    if (k == 5 || i + 1 >= args.size()) {
      fprintf(err, "numabind prepare-basis: unexpected argument %s (this command is run by the library)\n",
              args[i].c_str());
      return kExitUsage;
    }
    values[k] = args[i + 1];
  }
  // The library sends the values as it read them; they are read again here by the same parsers
  // (config::ParseVar), as this process has only their text.
  planner::PrepareRequest request;
  std::string why;
  plan::PlanBasis* basis = nullptr;
  if (planner::RequestFromText(values[0].c_str(), values[1].c_str(), values[2].c_str(), &request, &why)) {
    request.topology = values[3].empty() ? nullptr : values[3].c_str();
    request.env = env;
    request.want_nics = values[4] == "1";
    basis = planner::Prepare(request, &why);
  }
  if (basis == nullptr) {
    WriteFrame(out, plan::kErrorTag, why.data(), why.size());
    return kExitFailure;
  }
  plan::PlanBasis* block = basis;
  uint64_t size = block->total_bytes;
  plan::BasisToOffsets(block);
  int status = WriteFrame(out, plan::kBasisTag, block, size);
  free(block);
  return status;
}

}  // namespace numabind::cli
