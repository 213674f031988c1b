// `make check-abi` holds for the built shim: libc alone in DT_NEEDED and only the wrapped functions
// exported. The check itself must be able to fail: it rejects a library that breaks both rules.

#include <criterion/criterion.h>

#include <string>

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

Test(abi, shim_needs_libc_alone_and_exports_wrappers_only) {
  std::string out;
  RunResult r = CheckAbi(BuildDir() + "/libnumabind.so", &out);
  cr_expect_eq(r.exit_code, 0, "%s", out.c_str());
  cr_expect(out.find("exports 22 wrapped functions") != std::string::npos, "%s", out.c_str());
}

Test(abi, check_rejects_a_library_that_needs_more) {
  std::string out;
  RunResult r = CheckAbi(BuildDir() + "/numabind", &out);  // the command needs libstdc++ and hwloc
  cr_expect_neq(r.exit_code, 0, "%s", out.c_str());
  cr_expect(out.find("libstdc++") != std::string::npos, "%s", out.c_str());
  cr_expect(out.find("missing: execve") != std::string::npos, "%s", out.c_str());
}
