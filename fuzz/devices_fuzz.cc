// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_DEVICES and PCI bus ids (config/grammar.cc, read through config::Parse and through the planner's
// request, planner/request.cc and planner/devices.cc).
// Beyond not crashing: a normalized bus id has the form dddd:bb:dd.f and normalizes to itself; the list
// keeps one id per entry, in order; a rejected value gets a reason naming the variable; and the library's
// check (config::Parse) and the planner's request (planner::RequestFromText, then DeviceSpecOf) accept
// exactly the same values.

#include <string>

#include "config/config.h"
#include "fuzz/fuzz_util.h"
#include "planner/devices.h"
#include "planner/planner.h"

namespace {

bool IsHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

// dddd:bb:dd.f with a domain of 4 to 8 lower-case hex digits.
bool IsNormalized(const std::string& id) {
  size_t colon = id.find(':');
  if (colon < 4 || colon > 8 || id.size() != colon + 8) return false;
  for (size_t i = 0; i < id.size(); ++i) {
    size_t k = i - colon;
    bool sep = i == colon || k == 3 || k == 6;
    if (i > colon && sep && id[i] != (k == 6 ? '.' : ':')) return false;
    if (!sep && !IsHex(id[i])) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text = numabind::fuzz::AsText(data, size);
  const char* in = text.c_str();

  std::string id;
  if (numabind::planner::NormalizeBusId(text, &id)) {
    FUZZ_CHECK(IsNormalized(id), "bus id \"%s\" normalized to \"%s\"", in, id.c_str());
    std::string again;
    FUZZ_CHECK(numabind::planner::NormalizeBusId(id, &again) && again == id, "\"%s\" -> \"%s\" -> \"%s\"", in,
               id.c_str(), again.c_str());
  }

  numabind::planner::DeviceSpec spec;
  std::string err;
  numabind::planner::PrepareRequest request;
  bool ok = numabind::planner::RequestFromText("node", nullptr, in, &request, &err);
  if (ok) spec = numabind::planner::DeviceSpecOf(request.devices);
  if (ok && spec.mode == numabind::config::DeviceMode::kList) {
    size_t entries = 1;
    for (char c : text) entries += c == ',';
    FUZZ_CHECK(spec.bus_ids.size() == entries, "NUMABIND_DEVICES=\"%s\": %zu ids", in, spec.bus_ids.size());
    for (const std::string& b : spec.bus_ids) FUZZ_CHECK(IsNormalized(b), "\"%s\": id \"%s\"", in, b.c_str());
  } else if (ok) {
    FUZZ_CHECK(spec.bus_ids.empty(), "NUMABIND_DEVICES=\"%s\"", in);
  } else {
    FUZZ_CHECK(err.compare(0, 16, "NUMABIND_DEVICES") == 0, "input \"%s\": reason \"%s\"", in, err.c_str());
  }

  // One grammar (config/grammar.cc): the library's check and the planner agree.
  if (!text.empty()) {
    std::string var = "NUMABIND_DEVICES=" + text;
    const char* env[] = {var.c_str(), nullptr};
    numabind::config::Config config;
    numabind::config::Error config_err;
    bool config_ok = numabind::config::Parse(env, &config, &config_err);
    FUZZ_CHECK(config_ok == ok, "NUMABIND_DEVICES=\"%s\": config says %s, core says %s", in,
               config_ok ? "ok" : config_err.text, ok ? "ok" : err.c_str());
  }
  return 0;
}
