// `make check-abi` holds for the built shim: nothing in DT_NEEDED, weak C library imports and only the
// wrapped functions exported. The check itself must be able to fail: it rejects a library that breaks the
// rules. And what the weak imports are for: a dynamic program with no C library starts preloaded.

#include <criterion/criterion.h>

#include <string>
#include <vector>

#include "tests/shim/launch_util.h"

using numabind::shim::test::BuildDir;
using numabind::shim::test::MakeTempDir;
using numabind::shim::test::ReadFile;
using numabind::shim::test::RemoveTree;
using numabind::shim::test::RepoDir;
using numabind::shim::test::Run;
using numabind::shim::test::RunResult;

namespace {

RunResult CheckAbi(const std::string& lib, std::string* output) {
  std::string dir = MakeTempDir("numabind-abi");
  RunResult r = Run({RepoDir() + "/scripts/check-abi.sh", lib}, {}, dir + "/out", 30);
  *output = ReadFile(dir + "/out");
  RemoveTree(dir);
  return r;
}

}  // namespace

Test(abi, shim_needs_nothing_and_exports_wrappers_only) {
  std::string out;
  RunResult r = CheckAbi(BuildDir() + "/libnumabind.so", &out);
  cr_expect_eq(r.exit_code, 0, "%s", out.c_str());
  cr_expect(out.find("needs nothing, imports ") != std::string::npos, "%s", out.c_str());
  cr_expect(out.find("exports 24 wrapped functions") != std::string::npos, "%s", out.c_str());
}

Test(abi, check_rejects_a_library_that_needs_more) {
  std::string out;
  RunResult r = CheckAbi(BuildDir() + "/numabind", &out);  // the command needs libstdc++ and hwloc
  cr_expect_neq(r.exit_code, 0, "%s", out.c_str());
  cr_expect(out.find("libstdc++") != std::string::npos, "%s", out.c_str());
  cr_expect(out.find("missing: execve") != std::string::npos, "%s", out.c_str());
}

// The library's C library symbols are the program's (base/libc_imports.h). A program that has none must
// still start, inert or configured, with lazy binding or LD_BIND_NOW (which resolves every import at load:
// a strong undefined one would stop the program with "symbol lookup error").
Test(abi, program_without_a_c_library_starts_preloaded) {
  std::string dir = MakeTempDir("numabind-nolibc");
  const std::string lib = "LD_PRELOAD=" + BuildDir() + "/libnumabind.so";
  const std::vector<std::vector<std::string>> cases = {{lib},
                                                       {lib, "NUMABIND_POLICY=node"},
                                                       {lib, "LD_BIND_NOW=1"},
                                                       {lib, "LD_BIND_NOW=1", "NUMABIND_POLICY=node"}};
  for (const auto& env : cases) {
    RunResult r = Run({BuildDir() + "/helpers/no_libc"}, env, dir + "/out", 30);
    std::string out = ReadFile(dir + "/out");
    cr_expect_eq(r.exit_code, 0, "%s: exit %d: %s", env.back().c_str(), r.exit_code, out.c_str());
    cr_expect_eq(out, "no libc: ok\n", "%s: %s", env.back().c_str(), out.c_str());
  }
  RemoveTree(dir);
}
