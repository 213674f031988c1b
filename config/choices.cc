// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0

#include "config/choices.h"

#include "base/hot.h"
#include "base/nearest.h"
#include "config/vars.h"

namespace numabind::config {

// Child-safe: compares characters.
NUMABIND_HOT int ChoiceOf(const Choices& c, const char* value, int n) {
  if (n < 0 || n > c.count) n = c.count;
  for (int i = 0; i < n; ++i) {
    const char* w = c.words[i];
    const char* v = value;
    while (*w != '\0' && *w == *v) ++w, ++v;
    if (*w == '\0' && *v == '\0') return i;
  }
  return -1;
}

size_t JoinChoices(const Choices& c, const char* sep, const char* last, char* out, size_t cap) {
  size_t at = 0;
  auto put = [&](const char* s) {
    for (; *s != '\0'; ++s) {
      if (at + 1 < cap) out[at++] = *s;
    }
  };
  for (int i = 0; i < c.count; ++i) {
    if (i > 0) put(i + 1 == c.count ? last : sep);
    put(c.words[i]);
  }
  if (cap > 0) out[at] = '\0';
  return at;
}

void HintChoice(const Choices& c, int n, const char* value, char* why, size_t cap) {
  if (cap == 0) return;
  if (n < 0 || n > c.count) n = c.count;
  base::Nearest near(value, base::StrLen(value));
  for (int i = 0; i < n; ++i) near.Offer(c.words[i]);
  base::TextWriter w{why, cap, base::StrLen(why)};
  near.Hint(&w);
}

const Choices* ChoicesOfVar(int id) {
  switch (id) {
    case kVarPolicy: return &kPolicyWords;
    case kVarMemory: return &kMemoryWords;
    case kVarDevices: return &kDevicesWords;
    case kVarForks: return &kForksWords;
    case kVarLog: return &kLogWords;
    case kVarLogFormat: return &kLogFormatWords;
    case kVarContainer: return &kContainerWords;
    case kVarCoreKinds: return &kCoreKindsWords;
    case kVarStrict:
    case kVarDisable:
    case kVarGuard:
    case kVarLocality:
    case kVarByDevice: return &kBoolWords;
    default: return nullptr;
  }
}

}  // namespace numabind::config
