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
#include "cli/commands.h"
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

int PrepareBasisMain(const Invocation& call) {
  FILE* out = call.out;
  // The library sends the inputs (config/planner_inputs.h) as it read them; their texts are read again
  // here by the same parsers (config::ParseVar), as this process has only their text.
  planner::PrepareRequest request;
  std::string why;
  plan::PlanBasis* basis = nullptr;
  planner::ArgsResult read = planner::RequestFromArgs(call.args, call.env, &request, &why);
  if (read == planner::ArgsResult::kOk) {
    basis = planner::Prepare(request, &why);
  } else if (read == planner::ArgsResult::kBadArgument) {
    fprintf(call.err, "numabind prepare-basis: %s (this command is run by the library)\n", why.c_str());
    return kExitUsage;
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
