// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// A rank's name for people (base/command_name.h): a Python interpreter is named with what it runs, any
// other program as it was named before.

#include "base/command_name.h"

#include <criterion/criterion.h>
#include <string.h>

#include <string>

using numabind::base::CommandName;
using numabind::base::IsPythonName;

namespace {

std::string Name(const char* path, std::initializer_list<const char*> args, size_t cap = 256) {
  const char* argv[16];
  size_t n = 0;
  for (const char* a : args) argv[n++] = a;
  argv[n] = nullptr;
  char buf[256];
  return CommandName(path, args.size() == 0 ? nullptr : argv, buf, cap);
}

}  // namespace

Test(command_name, interpreters) {
  cr_expect(IsPythonName("python"));
  cr_expect(IsPythonName("python3"));
  cr_expect(IsPythonName("/usr/bin/python3.11"));
  cr_expect(!IsPythonName("python3-config"));
  cr_expect(!IsPythonName("/usr/bin/pythonic"));
  cr_expect(!IsPythonName("/opt/python3/bin/torchrun"));
  cr_expect(!IsPythonName("pytho"));
  cr_expect(!IsPythonName(nullptr));
}

Test(command_name, python_by_its_script) {
  struct {
    const char* path;
    std::initializer_list<const char*> argv;
    const char* want;
  } cases[] = {
      {"/usr/bin/python3", {"python3", "train.py", "--lr", "3"}, "python3 train.py"},
      {"/usr/bin/python3", {"/usr/bin/python3", "-u", "/job/train.py"}, "python3 /job/train.py"},
      {"/usr/bin/python3.11", {"python3.11", "-O", "-B", "t.py"}, "python3.11 t.py"},
      {"/usr/bin/python3", {"python3", "-X", "dev", "-W", "ignore", "t.py"}, "python3 t.py"},
      {"/usr/bin/python3", {"python3", "-Xdev", "-Wignore", "-uB", "t.py"}, "python3 t.py"},
      {"/usr/bin/python3",
       {"python3", "-m", "torch.distributed.run", "t.py"},
       "python3 -m torch.distributed.run"},
      {"/usr/bin/python3", {"python3", "-um", "pkg.main"}, "python3 -m pkg.main"},
      {"/usr/bin/python3", {"python3", "-mpkg"}, "python3 -m pkg"},
      {"/usr/bin/python3", {"python3", "-c", "import os; print(1)"}, "python3 -c"},
      {"/usr/bin/python3", {"python3", "-uc", "pass"}, "python3 -c"},
      {"/usr/bin/python3", {"python3", "-", "x"}, "python3 -"},
      {"/usr/bin/python3", {"python3", "--", "-odd.py"}, "python3 -odd.py"},
      {"/usr/bin/python3", {"python3", "--check-hash-based-pycs", "always", "t.py"}, "python3 t.py"},
      {"/usr/bin/python3", {"python3"}, "python3"},
      {"/usr/bin/python3", {"python3", "-u"}, "python3"},
      {"/usr/bin/python3", {}, "python3"},
      // The exec's path may be a link with another name; argv[0] says it is Python.
      {"/opt/env/bin/py", {"python", "t.py"}, "python t.py"},
      // Found by PATH: the path is argv[0] itself.
      {nullptr, {"python3", "t.py"}, "python3 t.py"},
      // Any other program: named as before.
      {"/work/build/helpers/report", {"report", "--out", "x"}, "/work/build/helpers/report"},
      {"/usr/bin/torchrun", {"torchrun", "t.py"}, "/usr/bin/torchrun"},
      {nullptr, {"./a.out", "x"}, "./a.out"},
  };
  for (const auto& c : cases) {
    cr_expect_eq(Name(c.path, c.argv), std::string(c.want), "%s: got %s, want %s", c.path ? c.path : "(null)",
                 Name(c.path, c.argv).c_str(), c.want);
  }
}

Test(command_name, cut_to_the_buffer) {
  cr_expect_eq(Name("/usr/bin/python3", {"python3", "train.py"}, 10), std::string("python3 t"));
  cr_expect_eq(Name("/usr/bin/python3", {"python3", "train.py"}, 1), std::string(""));
}
