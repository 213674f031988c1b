// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A rank's name for people (base/command_name.h). Child-safe throughout: reads its arguments, writes the
// caller's buffer.

#include "base/command_name.h"

#include "base/text.h"
#include "base/text_writer.h"

namespace numabind::base {
namespace {

/// Child-safe: what the interpreter runs, after its options (CPython's getopt string
/// "bBc:dEhiIJm:OPqRsStuvVW:xX:?"): the script (*script), or -m's module (*module), or -c (*code).
void FindScript(const char* const* argv, const char** script, const char** module, bool* code) {
  for (const char* const* a = argv; *a != nullptr; ++a) {
    const char* s = *a;
    if (s[0] != '-' || s[1] == '\0') {  // a script, or "-": standard input
      *script = s;
      return;
    }
    if (s[1] == '-') {
      if (s[2] == '\0') {  // "--": what follows is the script
        *script = a[1];
        return;
      }
      const char* with_value = "--check-hash-based-pycs";
      const char* t = s;
      while (*with_value != '\0' && *t == *with_value) ++t, ++with_value;
      if (*with_value == '\0' && *t == '\0' && a[1] != nullptr) ++a;  // its value is the next argument
      continue;
    }
    for (const char* f = s + 1; *f != '\0'; ++f) {
      if (*f == 'c') {
        *code = true;
        return;
      }
      if (*f == 'm') {
        *module = f[1] != '\0' ? f + 1 : a[1];
        return;
      }
      if (*f == 'W' || *f == 'X') {  // the value is the rest of this argument, or the next one
        if (f[1] == '\0' && a[1] != nullptr) ++a;
        break;
      }
    }
  }
}

}  // namespace

// Child-safe: compares characters.
bool IsPythonName(const char* name) {
  if (name == nullptr) return false;
  const char* s = LastComponent(name);
  for (const char* p = "python"; *p != '\0'; ++p, ++s) {
    if (*s != *p) return false;
  }
  for (; *s != '\0'; ++s) {
    if ((*s < '0' || *s > '9') && *s != '.') return false;
  }
  return true;
}

// Child-safe: reads argv, writes buf.
const char* CommandName(const char* path, const char* const* argv, char* buf, size_t cap) {
  const char* arg0 = argv != nullptr ? argv[0] : nullptr;
  if (path == nullptr) path = arg0;
  if (path == nullptr) return "(program)";
  const char* interpreter = IsPythonName(path) ? path : IsPythonName(arg0) ? arg0 : nullptr;
  if (interpreter == nullptr || buf == nullptr || cap == 0) return path;
  const char* script = nullptr;
  const char* module = nullptr;
  bool code = false;
  if (arg0 != nullptr) FindScript(argv + 1, &script, &module, &code);
  buf[0] = '\0';
  TextWriter w{buf, cap, 0};
  w.Str(LastComponent(interpreter));
  if (code) w.Str(" -c");
  if (module != nullptr) w.Str(" -m ").Str(module);
  if (script != nullptr) w.Str(" ").Str(script);
  return buf;
}

}  // namespace numabind::base
