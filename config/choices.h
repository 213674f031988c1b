// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The words of the variables whose values are a fixed list, each written once here: the readers
// (config/readers.cc, grammar.cc) look values up in them, the one-line errors ("expected local,
// preferred, bind or interleave"), the options of `run` and `plan` and the variable table (`numabind vars`,
// the man page, the README) print them. Arrays of characters, not pointers: the library carries them and
// a pointer would be one more relocation at every process's start.

#ifndef NUMABIND_CONFIG_CHOICES_H_
#define NUMABIND_CONFIG_CHOICES_H_

#include <stddef.h>
#include <stdint.h>

namespace numabind::config {

constexpr size_t kChoiceMax = 20;  ///< room for the longest word ("nodes:LIST|LIST...") and its NUL

/// A variable's words, in the order its typed value numbers them (LogLevel, MemoryKind...).
struct Choices {
  char words[8][kChoiceMax];
  uint8_t count;
};

/// NUMABIND_POLICY: the keywords (PolicyKind's kNode..kCoreComplex, then kAuto), then the two maps' forms,
/// which are read by their prefix, never as words.
inline constexpr Choices kPolicyWords = {
    {"node", "socket", "exclusive", "core-complex", "auto", "cpus:LIST|LIST...", "nodes:LIST|LIST..."}, 7};
constexpr int kPolicyKeywords = 5;  ///< the words of kPolicyWords that are keywords
inline constexpr Choices kMemoryWords = {{"local", "preferred", "bind", "interleave", "near", "weighted"}, 6};
inline constexpr Choices kLogWords = {{"off", "warn", "info", "debug"}, 4};
inline constexpr Choices kLogFormatWords = {{"text", "json"}, 2};
inline constexpr Choices kForksWords = {{"off", "ranks"}, 2};
inline constexpr Choices kContainerWords = {{"strip", "keep"}, 2};
inline constexpr Choices kCoreKindsWords = {{"fast-first", "all"}, 2};
/// NUMABIND_DEVICES: the keywords (DeviceMode's kAuto, kNone), then the list's form.
inline constexpr Choices kDevicesWords = {{"auto", "none", "BUSID,BUSID..."}, 3};
inline constexpr Choices kBoolWords = {{"0", "1"}, 2};

/// The index of `value` among the first `n` words of `c` (all of them when n < 0), or -1. Child-safe.
int ChoiceOf(const Choices& c, const char* value, int n = -1);

/// The words joined by `sep`, the last two by `last` ("local, preferred, bind or interleave" with ", " and
/// " or "), into out[0..cap) with a NUL, cut to fit; the length written.
size_t JoinChoices(const Choices& c, const char* sep, const char* last, char* out, size_t cap);

/// Appends " (did you mean W?)" to the text in why[0..cap) when one of the first `n` words of `c` (all of
/// them when n < 0) is near `value` (base/nearest.h): the hint of every refused value of a fixed list.
void HintChoice(const Choices& c, int n, const char* value, char* why, size_t cap);

/// The words of the variable `id` (a config::VarId), or nullptr when its values are not a fixed list.
const Choices* ChoicesOfVar(int id);

}  // namespace numabind::config

#endif  // NUMABIND_CONFIG_CHOICES_H_
