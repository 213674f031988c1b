// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The NUMABIND_* variables: every variable's good and bad values, the error texts, defaults, unknown names,
// Lookup, the rank-variable precedence and the variable table.

#include "config/config.h"
#include "config/choices.h"

#include <criterion/criterion.h>
#include <fnmatch.h>
#include <string.h>

#include <memory>
#include <string>
#include <vector>

#include "config/vars.h"
#include "tests/config/config_test_util.h"

using numabind::config::Config;
using numabind::config::Error;
using numabind::config::LogLevel;
using numabind::config::Lookup;
using numabind::config::Parse;
using numabind::config::UnknownVar;

namespace {

using numabind::config::testing::Env;

/// Parses one variable and expects success.
Config Good(std::vector<std::string> vars) {
  // The Config points into the strings: keep them alive, at a fixed address (freed at exit, for
  // LeakSanitizer).
  static std::vector<std::unique_ptr<Env>> keep;
  keep.push_back(std::make_unique<Env>(std::move(vars)));
  Env* env = keep.back().get();
  Config c;
  Error err;
  bool ok = Parse(env->get(), &c, &err);
  cr_assert(ok, "expected success, got: %s", err.text);
  cr_assert_str_empty(err.text);
  return c;
}

/// Parses and expects exactly this error text.
void Bad(std::vector<std::string> vars, const char* expected) {
  Env env(std::move(vars));
  Config c;
  Error err;
  bool ok = Parse(env.get(), &c, &err);
  cr_assert_not(ok, "expected failure \"%s\"", expected);
  cr_assert_str_eq(err.text, expected);
}

/// Parses and expects an error starting with this prefix.
std::string BadPrefix(std::vector<std::string> vars, const char* prefix) {
  Env env(std::move(vars));
  Config c;
  Error err;
  bool ok = Parse(env.get(), &c, &err);
  cr_assert_not(ok, "expected failure starting \"%s\"", prefix);
  cr_assert(strncmp(err.text, prefix, strlen(prefix)) == 0, "got \"%s\", expected prefix \"%s\"", err.text,
            prefix);
  cr_assert(strchr(err.text, '\n') == nullptr, "one line: %s", err.text);
  return err.text;
}

void ExpectDefaults(const Config& c) {
  cr_assert_not(c.enabled);
  cr_assert_not(c.disabled);
  cr_assert_null(c.policy.text);
  cr_assert_str_eq(numabind::config::MemoryName(c.memory), "local");
  cr_assert_str_eq(c.devices.text, "auto");
  cr_assert_eq(c.nranks, 0u);
  cr_assert_null(c.rank_var);
  cr_assert_str_eq(c.match, numabind::config::kDefaultMatch);
  cr_assert_null(c.topology);
  cr_assert_eq(c.log, LogLevel::kWarn);
  cr_assert_eq(c.log_format, numabind::config::LogFormat::kText);
  cr_assert_null(c.log_file);
  cr_assert_not(c.strict);
}

}  // namespace

// ---------------------------------------------------------------------------------------------- defaults

Test(defaults, empty_environment) { ExpectDefaults(Good({})); }

Test(defaults, null_environment) {
  Config c;
  c.strict = true;
  Error err;
  cr_assert(Parse(nullptr, &c, &err));
  ExpectDefaults(c);
}

Test(defaults, other_variables_are_ignored) {
  ExpectDefaults(Good({"PATH=/usr/bin", "LOCAL_RANK=3", "numabind_policy=x", "NUMABIND", "NUMABINDX=1"}));
}

Test(defaults, empty_values_count_as_unset) {
  ExpectDefaults(Good({"NUMABIND_POLICY=", "NUMABIND_MEMORY=", "NUMABIND_DEVICES=", "NUMABIND_NRANKS=",
                       "NUMABIND_RANK_VAR=", "NUMABIND_TOPOLOGY=", "NUMABIND_LOG=", "NUMABIND_LOG_FILE=",
                       "NUMABIND_LOG_FORMAT=", "NUMABIND_STRICT=", "NUMABIND_DISABLE="}));
}

Test(defaults, null_error_pointer_is_allowed) {
  Env env({"NUMABIND_MEMORY=fast"});
  Config c;
  cr_assert_not(Parse(env.get(), &c, nullptr));
}

Test(defaults, parse_resets_the_config) {
  Config c;
  c.policy.text = "x";
  c.nranks = 7;
  c.log = LogLevel::kDebug;
  Env env({});
  Error err;
  cr_assert(Parse(env.get(), &c, &err));
  ExpectDefaults(c);
}

// ------------------------------------------------------------------------------------------------ policy

Test(policy, keywords) {
  for (const char* p : {"node", "socket", "exclusive", "core-complex", "auto"}) {
    Config c = Good({std::string("NUMABIND_POLICY=") + p});
    cr_assert_str_eq(c.policy.text, p);
    cr_assert(c.enabled);
  }
}

Test(policy, points_into_the_environment) {
  Env env({"NUMABIND_POLICY=node"});
  Config c;
  Error err;
  cr_assert(Parse(env.get(), &c, &err));
  cr_assert_eq(c.policy.text, env.ptrs[0] + strlen("NUMABIND_POLICY="));
}

Test(policy, maps) {
  for (const char* p :
       {"cpus:0-15|16-31", "cpus:1|0", "cpus:0", "cpus:0-3*2|4-7*2", "cpus:0-3,8,10-11|4", "nodes:0|0|1|1",
        "nodes:0-1", "nodes:1*4|0*4", "cpus:65535", "nodes:1023", "cpus:0-3*4096", "cpus:0-65535*4095|1"}) {
    Config c = Good({std::string("NUMABIND_POLICY=") + p});
    cr_assert_str_eq(c.policy.text, p);
  }
}

Test(policy, bad_keyword) {
  Bad({"NUMABIND_POLICY=numa"},
      "NUMABIND_POLICY=numa: expected node, socket, exclusive, core-complex, auto, cpus:LIST|LIST... or "
      "nodes:LIST|LIST...");
  BadPrefix({"NUMABIND_POLICY=Node"}, "NUMABIND_POLICY=Node: expected node, socket");
  BadPrefix({"NUMABIND_POLICY=node "}, "NUMABIND_POLICY=node : expected node, socket");
  BadPrefix({"NUMABIND_POLICY=cores:0"}, "NUMABIND_POLICY=cores:0: expected node, socket");
}

Test(policy, bad_maps) {
  Bad({"NUMABIND_POLICY=cpus:"},
      "NUMABIND_POLICY=cpus:: entry 1 (): expected a list of CPU numbers such as 0-3,8, optionally followed "
      "by *N");
  Bad({"NUMABIND_POLICY=cpus:0-3|x"},
      "NUMABIND_POLICY=cpus:0-3|x: entry 2 (x): expected a list of CPU numbers such as 0-3,8, optionally "
      "followed by *N");
  Bad({"NUMABIND_POLICY=nodes:0|"},
      "NUMABIND_POLICY=nodes:0|: entry 2 (): expected a list of node numbers such as 0-3,8, optionally "
      "followed by *N");
  Bad({"NUMABIND_POLICY=cpus:3-1"}, "NUMABIND_POLICY=cpus:3-1: entry 1 (3-1): range 3-1 goes down");
  Bad({"NUMABIND_POLICY=cpus:1-0"}, "NUMABIND_POLICY=cpus:1-0: entry 1 (1-0): range 1-0 goes down");
  Bad({"NUMABIND_POLICY=nodes:0|2-1"}, "NUMABIND_POLICY=nodes:0|2-1: entry 2 (2-1): range 2-1 goes down");
  Bad({"NUMABIND_POLICY=cpus:0,9-2|1"}, "NUMABIND_POLICY=cpus:0,9-2|1: entry 1 (0,9-2): range 9-2 goes down");
  Bad({"NUMABIND_POLICY=cpus:0-65536"},
      "NUMABIND_POLICY=cpus:0-65536: entry 1 (0-65536): CPU numbers go up to 65535");
  Bad({"NUMABIND_POLICY=nodes:0|1024"},
      "NUMABIND_POLICY=nodes:0|1024: entry 2 (1024): node numbers go up to 1023");
  Bad({"NUMABIND_POLICY=cpus:0-3*0"},
      "NUMABIND_POLICY=cpus:0-3*0: entry 1 (0-3*0): *N takes a count from 1 to 4096");
  Bad({"NUMABIND_POLICY=cpus:0-3*"},
      "NUMABIND_POLICY=cpus:0-3*: entry 1 (0-3*): *N takes a count from 1 to 4096");
  Bad({"NUMABIND_POLICY=cpus:0-3*2*2"},
      "NUMABIND_POLICY=cpus:0-3*2*2: entry 1 (0-3*2*2): *N takes a count from 1 to 4096");
  BadPrefix({"NUMABIND_POLICY=cpus:*2"}, "NUMABIND_POLICY=cpus:*2: entry 1 (*2): expected a list of CPU");
  BadPrefix({"NUMABIND_POLICY=cpus:0,,1"}, "NUMABIND_POLICY=cpus:0,,1: entry 1 (0,,1): expected a list");
  BadPrefix({"NUMABIND_POLICY=cpus:0-"}, "NUMABIND_POLICY=cpus:0-: entry 1 (0-): expected a list");
  BadPrefix({"NUMABIND_POLICY=cpus:-1"}, "NUMABIND_POLICY=cpus:-1: entry 1 (-1): expected a list");
  BadPrefix({"NUMABIND_POLICY=cpus:0x3"}, "NUMABIND_POLICY=cpus:0x3: entry 1 (0x3): expected a list");
  BadPrefix({"NUMABIND_POLICY=cpus: 1"}, "NUMABIND_POLICY=cpus: 1: entry 1 ( 1): expected a list");
  BadPrefix({"NUMABIND_POLICY=cpus:99999999999999999999"},
            "NUMABIND_POLICY=cpus:99999999999999999999: entry 1");
}

Test(policy, map_size_is_capped) {
  // cpus:0-65535*65536 cost the planner 5.5 s and 1.6 GB: a map expands to 4096 entries at most.
  Bad({"NUMABIND_POLICY=cpus:0-65535*65536"},
      "NUMABIND_POLICY=cpus:0-65535*65536: entry 1 (0-65535*65536): *N takes a count from 1 to 4096");
  Bad({"NUMABIND_POLICY=cpus:0-65535*4096|1"},
      "NUMABIND_POLICY=cpus:0-65535*4096|1: more than 4096 entries (after *N repeats)");
  std::string many = "nodes:0";
  for (int i = 0; i < 4096; ++i) many += "|0";
  BadPrefix({"NUMABIND_POLICY=" + many}, "NUMABIND_POLICY=nodes:0|0");
}

Test(policy, long_values_are_shortened) {
  std::string map = "cpus:";
  for (int i = 0; i < 100; ++i) map += std::to_string(i) + "|";
  map += "x";
  std::string text = BadPrefix({"NUMABIND_POLICY=" + map}, "NUMABIND_POLICY=cpus:0|1|2|");
  cr_assert(text.find("...: entry 101 (x): expected a list") != std::string::npos, "%s", text.c_str());
  cr_assert_lt(text.size(), sizeof(Error::text));
}

// ------------------------------------------------------------------------------------------------ memory

Test(memory, values) {
  for (const char* m : {"local", "preferred", "bind", "interleave", "near", "weighted"}) {
    Config c = Good({std::string("NUMABIND_MEMORY=") + m});
    cr_assert_str_eq(numabind::config::MemoryName(c.memory), m);
  }
  cr_assert_eq(Good({"NUMABIND_MEMORY=near"}).memory, numabind::config::MemoryKind::kNear);
  cr_assert_eq(Good({"NUMABIND_MEMORY=weighted"}).memory, numabind::config::MemoryKind::kWeighted);
}

Test(memory, bad) {
  const std::string words = "expected local, preferred, bind, interleave, near or weighted";
  Bad({"NUMABIND_MEMORY=fast"}, ("NUMABIND_MEMORY=fast: " + words).c_str());
  Bad({"NUMABIND_MEMORY=Bind"}, ("NUMABIND_MEMORY=Bind: " + words + " (did you mean bind?)").c_str());
  Bad({"NUMABIND_MEMORY=default"}, ("NUMABIND_MEMORY=default: " + words).c_str());
  Bad({"NUMABIND_MEMORY=weighted-interleave"}, ("NUMABIND_MEMORY=weighted-interleave: " + words).c_str());
  Bad({"NUMABIND_MEMORY=Near"}, ("NUMABIND_MEMORY=Near: " + words + " (did you mean near?)").c_str());
}

// ----------------------------------------------------------------------------------------------- devices

Test(devices, values) {
  for (const char* d : {"auto", "none", "0000:34:00.0", "0000:34:00.0,0000:4e:00.0", "34:00.0", "0:3:0.1",
                        "0000:AB:1f.7", "10000:00:01.0"}) {
    Config c = Good({std::string("NUMABIND_DEVICES=") + d});
    cr_assert_str_eq(c.devices.text, d);
  }
}

Test(devices, bad) {
  Bad({"NUMABIND_DEVICES=gpu0"},
      "NUMABIND_DEVICES=gpu0: expected auto, none or PCI bus ids such as 0000:34:00.0,0000:4e:00.0");
  Bad({"NUMABIND_DEVICES=0000:34:00.0,gpu1"},
      "NUMABIND_DEVICES=0000:34:00.0,gpu1: expected auto, none or PCI bus ids such as "
      "0000:34:00.0,0000:4e:00.0 (not a bus id: gpu1)");
  for (const char* d : {"0000:34:00.8", "0000:34:00", "0000:34:000.0", "0000:340:00.0", "x:34:00.0",
                        "0:0:34:00.0", "0000:34:00.0,", ",0000:34:00.0", "0000:34:00.0 ", "AUTO", "0",
                        "000000000:00:00.0", "0000:34:20.0", " 34:00.0", "34:00.0, 4e:00.0"}) {
    BadPrefix({std::string("NUMABIND_DEVICES=") + d}, "NUMABIND_DEVICES=");
  }
}

// --------------------------------------------------------------------------------------------------- smt

Test(smt, values) {
  cr_assert_eq(Good({}).smt, 0u);  // unset: every hardware thread
  cr_assert_eq(Good({"NUMABIND_SMT=1"}).smt, 1u);
  cr_assert_eq(Good({"NUMABIND_SMT=8"}).smt, 8u);
}

Test(core_kinds, values) {
  cr_assert(!Good({}).all_kinds);
  cr_assert(!Good({"NUMABIND_CORE_KINDS=fast-first"}).all_kinds);
  cr_assert(Good({"NUMABIND_CORE_KINDS=all"}).all_kinds);
  Bad({"NUMABIND_CORE_KINDS=fast"}, "NUMABIND_CORE_KINDS=fast: expected fast-first or all");
}

Test(smt, bad) {
  for (const char* n : {"0", "9", "-1", "two", "1x", " 1"}) {
    std::string v = std::string("NUMABIND_SMT=") + n;
    Bad({v}, (v + ": expected hardware threads per core, 1 to 8").c_str());
  }
}

// ------------------------------------------------------------------------------------------------ nranks

Test(nranks, values) {
  cr_assert_eq(Good({"NUMABIND_NRANKS=1"}).nranks, 1u);
  cr_assert_eq(Good({"NUMABIND_NRANKS=8"}).nranks, 8u);
  cr_assert_eq(Good({"NUMABIND_NRANKS=1024"}).nranks, 1024u);
  cr_assert_eq(Good({"NUMABIND_NRANKS=1048576"}).nranks, 1048576u);
}

Test(nranks, bad) {
  Bad({"NUMABIND_NRANKS=0"}, "NUMABIND_NRANKS=0: expected a positive integer up to 1048576");
  for (const char* n : {"-1", "abc", "4x", " 4", "1048577", "99999999999999999999", "0x10", "+3", "2.5"}) {
    std::string v = std::string("NUMABIND_NRANKS=") + n;
    Bad({v}, (v + ": expected a positive integer up to 1048576").c_str());
  }
}

// ---------------------------------------------------------------------------------------------- rank var

Test(rank_var, values) {
  cr_assert_str_eq(Good({"NUMABIND_RANK_VAR=MY_RANK"}).rank_var, "MY_RANK");
  cr_assert_str_eq(Good({"NUMABIND_RANK_VAR=_r2"}).rank_var, "_r2");
}

Test(rank_var, bad) {
  Bad({"NUMABIND_RANK_VAR=1X"}, "NUMABIND_RANK_VAR=1X: expected a variable name such as LOCAL_RANK");
  Bad({"NUMABIND_RANK_VAR=A-B"}, "NUMABIND_RANK_VAR=A-B: expected a variable name such as LOCAL_RANK");
  Bad({"NUMABIND_RANK_VAR=A=B"}, "NUMABIND_RANK_VAR=A=B: expected a variable name such as LOCAL_RANK");
}

// ------------------------------------------------------------------------------------------------- match

Test(match, default_matches_spawn_workers_only) {
  const char* glob = Good({}).match;
  const char* worker =
      "/usr/bin/python3 -c from multiprocessing.spawn import spawn_main; spawn_main(tracker_fd=5, "
      "pipe_handle=7) --multiprocessing-fork";
  const char* worker_flags =
      "/opt/venv/bin/python -s -I -X frozen_modules=off -c from multiprocessing.spawn import spawn_main; "
      "spawn_main(tracker_fd=12, pipe_handle=14) --multiprocessing-fork";
  const char* tracker = "/usr/bin/python3 -c from multiprocessing.resource_tracker import main;main(5)";
  const char* forkserver =
      "/usr/bin/python3 -c from multiprocessing.forkserver import main; main(8, 9, ['__main__'], **{})";
  cr_assert_eq(fnmatch(glob, worker, 0), 0);
  cr_assert_eq(fnmatch(glob, worker_flags, 0), 0);
  cr_assert_neq(fnmatch(glob, tracker, 0), 0);
  cr_assert_neq(fnmatch(glob, forkserver, 0), 0);
  cr_assert_neq(fnmatch(glob, "/usr/bin/python3 train.py", 0), 0);
  cr_assert_neq(fnmatch(glob, "sed -e s/a/b/", 0), 0);
}

Test(match, set_and_empty) {
  cr_assert_str_eq(Good({"NUMABIND_MATCH=*worker.py*"}).match, "*worker.py*");
  Config c = Good({"NUMABIND_MATCH="});
  cr_assert_str_eq(c.match, "");
  cr_assert_neq(fnmatch(c.match, "/usr/bin/python3 worker.py", 0), 0);
}

// ---------------------------------------------------------------------------------------------- topology

Test(topology, values) {
  cr_assert_str_eq(Good({"NUMABIND_TOPOLOGY=/tmp/machine.xml"}).topology, "/tmp/machine.xml");
  cr_assert_str_eq(Good({"NUMABIND_TOPOLOGY=synthetic:pack:2 core:2 pu:1"}).topology,
                   "synthetic:pack:2 core:2 pu:1");
}

Test(topology, bad) {
  Bad({"NUMABIND_TOPOLOGY=synthetic:"},
      "NUMABIND_TOPOLOGY=synthetic:: expected an hwloc XML file or synthetic:DESC such as synthetic:pack:2 "
      "core:4 pu:2");
  BadPrefix({"NUMABIND_TOPOLOGY=synthetic:  "}, "NUMABIND_TOPOLOGY=synthetic:  : expected an hwloc XML file");
}

// --------------------------------------------------------------------------------------------------- log

Test(log, levels) {
  cr_assert_eq(Good({"NUMABIND_LOG=off"}).log, LogLevel::kOff);
  cr_assert_eq(Good({"NUMABIND_LOG=warn"}).log, LogLevel::kWarn);
  cr_assert_eq(Good({"NUMABIND_LOG=info"}).log, LogLevel::kInfo);
  cr_assert_eq(Good({"NUMABIND_LOG=debug"}).log, LogLevel::kDebug);
}

Test(log, bad) {
  Bad({"NUMABIND_LOG=verbose"}, "NUMABIND_LOG=verbose: expected off, warn, info or debug");
  Bad({"NUMABIND_LOG=1"}, "NUMABIND_LOG=1: expected off, warn, info or debug");
}

Test(log, format) {
  cr_assert_eq(Good({}).log_format, numabind::config::LogFormat::kText);
  cr_assert_eq(Good({"NUMABIND_LOG_FORMAT=text"}).log_format, numabind::config::LogFormat::kText);
  cr_assert_eq(Good({"NUMABIND_LOG_FORMAT=json"}).log_format, numabind::config::LogFormat::kJson);
  Bad({"NUMABIND_LOG_FORMAT=JSON"}, "NUMABIND_LOG_FORMAT=JSON: expected text or json (did you mean json?)");
  Bad({"NUMABIND_LOG_FORMAT=xml"}, "NUMABIND_LOG_FORMAT=xml: expected text or json");
  // A bad variable elsewhere does not cost the format: the shim still writes its error line as JSON.
  Env env({"NUMABIND_LOG_FORMAT=json", "NUMABIND_MEMORY=fast"});
  numabind::config::Config c;
  numabind::config::Error err;
  cr_assert_not(numabind::config::Parse(env.get(), &c, &err));
  cr_assert_eq(c.log_format, numabind::config::LogFormat::kJson);
}

Test(container, mode) {
  cr_assert_not(Good({}).container_keep);
  cr_assert_not(Good({"NUMABIND_CONTAINER="}).container_keep);
  cr_assert_not(Good({"NUMABIND_CONTAINER=strip"}).container_keep);
  cr_assert(Good({"NUMABIND_CONTAINER=keep"}).container_keep);
  Bad({"NUMABIND_CONTAINER=KEEP"}, "NUMABIND_CONTAINER=KEEP: expected strip or keep (did you mean keep?)");
  Bad({"NUMABIND_CONTAINER=1"}, "NUMABIND_CONTAINER=1: expected strip or keep");
}

Test(log, file) {
  cr_assert_str_eq(Good({"NUMABIND_LOG_FILE=/tmp/numabind.log"}).log_file, "/tmp/numabind.log");
}

// ------------------------------------------------------------------------------------- strict and disable

Test(strict, values) {
  cr_assert(Good({"NUMABIND_STRICT=1"}).strict);
  cr_assert_not(Good({"NUMABIND_STRICT=0"}).strict);
}

Test(strict, bad) {
  Bad({"NUMABIND_STRICT=yes"}, "NUMABIND_STRICT=yes: expected 0 or 1");
  Bad({"NUMABIND_STRICT=2"}, "NUMABIND_STRICT=2: expected 0 or 1");
}

Test(guard, values) {
  cr_assert_not(Good({}).guard);
  cr_assert(Good({"NUMABIND_GUARD=1"}).guard);
  cr_assert_not(Good({"NUMABIND_GUARD=0"}).guard);
}

Test(guard, bad) { Bad({"NUMABIND_GUARD=on"}, "NUMABIND_GUARD=on: expected 0 or 1"); }

Test(forks, values) {
  cr_assert_not(Good({}).fork_ranks);
  cr_assert_not(Good({"NUMABIND_FORKS=off"}).fork_ranks);
  cr_assert(Good({"NUMABIND_FORKS=ranks"}).fork_ranks);
  Bad({"NUMABIND_FORKS=1"}, "NUMABIND_FORKS=1: expected off or ranks");
  Bad({"NUMABIND_FORKS=Ranks"}, "NUMABIND_FORKS=Ranks: expected off or ranks (did you mean ranks?)");
}

Test(by_device, values) {
  cr_assert_not(Good({}).by_device);
  cr_assert(Good({"NUMABIND_BY_DEVICE=1"}).by_device);
  cr_assert_not(Good({"NUMABIND_BY_DEVICE=0"}).by_device);
}

Test(by_device, bad) { Bad({"NUMABIND_BY_DEVICE=yes"}, "NUMABIND_BY_DEVICE=yes: expected 0 or 1"); }

Test(shared, values) {
  cr_expect_str_eq(Good({}).shared, "/dev/shm");
  cr_expect_str_eq(Good({"NUMABIND_SHARED=/run/user/1000"}).shared, "/run/user/1000");
  cr_expect_null(Good({"NUMABIND_SHARED=off"}).shared);
  cr_expect_str_eq(Good({"NUMABIND_SHARED="}).shared, "/dev/shm");
}

Test(shared, bad) {
  Bad({"NUMABIND_SHARED=shm"}, "NUMABIND_SHARED=shm: expected off or an absolute directory such as /dev/shm");
  Bad({"NUMABIND_SHARED=0"}, "NUMABIND_SHARED=0: expected off or an absolute directory such as /dev/shm");
}

Test(disable, turns_off_and_reads_nothing_else) {
  Config c = Good({"NUMABIND_POLICY=bogus", "NUMABIND_MEMORY=fast", "NUMABIND_DISABLE=1", "NUMABIND_TYPO=1"});
  cr_assert(c.disabled);
  cr_assert_not(c.enabled);
  cr_assert_null(c.policy.text);
}

Test(disable, zero_keeps_numabind_on) {
  Config c = Good({"NUMABIND_POLICY=node", "NUMABIND_DISABLE=0"});
  cr_assert_not(c.disabled);
  cr_assert(c.enabled);
  Bad({"NUMABIND_POLICY=node", "NUMABIND_DISABLE=0", "NUMABIND_MEMORY=fast"},
      "NUMABIND_MEMORY=fast: expected local, preferred, bind, interleave, near or weighted");
}

Test(disable, bad) {
  Bad({"NUMABIND_POLICY=node", "NUMABIND_DISABLE=true"}, "NUMABIND_DISABLE=true: expected 0 or 1");
}

Test(disable, bad_value_still_reads_the_rest) {
  // Found by fuzz/config_fuzz.cc: a bad NUMABIND_DISABLE stopped the reading, so NUMABIND_STRICT and
  // NUMABIND_LOG_FILE were not honoured.
  const char* env[] = {"NUMABIND_DISABLE=yes", "NUMABIND_STRICT=1",    "NUMABIND_LOG_FILE=/tmp/l",
                       "NUMABIND_MATCH=*w*",   "NUMABIND_MEMORY=fast", nullptr};
  Config c;
  Error err;
  cr_assert_not(Parse(env, &c, &err));
  cr_assert_str_eq(err.text, "NUMABIND_DISABLE=yes: expected 0 or 1");
  cr_assert_not(c.disabled);
  cr_assert(c.strict);
  cr_assert_str_eq(c.log_file, "/tmp/l");
  cr_assert_str_eq(c.match, "*w*");
}

// ------------------------------------------------------------------------------------------- all at once

Test(all, every_variable_set) {
  Config c = Good({"NUMABIND_POLICY=exclusive", "NUMABIND_MEMORY=bind", "NUMABIND_DEVICES=0000:34:00.0",
                   "NUMABIND_NRANKS=4", "NUMABIND_RANK_VAR=MY_RANK", "NUMABIND_MATCH=*w*",
                   "NUMABIND_TOPOLOGY=synthetic:pack:2 core:2 pu:1", "NUMABIND_LOG=info",
                   "NUMABIND_LOG_FILE=/tmp/l", "NUMABIND_STRICT=1", "NUMABIND_DISABLE=0"});
  cr_assert(c.enabled);
  cr_assert_str_eq(c.policy.text, "exclusive");
  cr_assert_str_eq(numabind::config::MemoryName(c.memory), "bind");
  cr_assert_str_eq(c.devices.text, "0000:34:00.0");
  cr_assert_eq(c.nranks, 4u);
  cr_assert_str_eq(c.rank_var, "MY_RANK");
  cr_assert_str_eq(c.match, "*w*");
  cr_assert_str_eq(c.topology, "synthetic:pack:2 core:2 pu:1");
  cr_assert_eq(c.log, LogLevel::kInfo);
  cr_assert_str_eq(c.log_file, "/tmp/l");
  cr_assert(c.strict);
}

Test(all, first_occurrence_wins_like_getenv) {
  Config c = Good({"NUMABIND_MEMORY=bind", "NUMABIND_MEMORY=fast"});
  cr_assert_str_eq(numabind::config::MemoryName(c.memory), "bind");
}

Test(all, keeps_what_parsed_before_the_error) {
  Env env({"NUMABIND_POLICY=node", "NUMABIND_LOG=loud"});
  Config c;
  Error err;
  cr_assert_not(Parse(env.get(), &c, &err));
  cr_assert_str_eq(c.policy.text, "node");
  cr_assert_str_eq(err.text, "NUMABIND_LOG=loud: expected off, warn, info or debug");
}

// ----------------------------------------------------------------------------------------- unknown names

/// Parses successfully and expects exactly this warning (an unknown name is ignored, not an error).
void Warned(std::vector<std::string> vars, const char* expected) {
  Env env(std::move(vars));
  Config c;
  Error err;
  bool ok = Parse(env.get(), &c, &err);
  cr_assert(ok, "expected success with warning \"%s\", got: %s", expected, err.text);
  cr_assert_str_empty(err.text);
  cr_assert_str_eq(err.warning, expected);
}

Test(unknown, suggests_the_nearest_name) {
  Warned({"NUMABIND_POLCY=node"},
         "NUMABIND_POLCY is not a numabind variable (did you mean NUMABIND_POLICY?)");
  Warned({"NUMABIND_RANKS=4"}, "NUMABIND_RANKS is not a numabind variable (did you mean NUMABIND_NRANKS?)");
  Warned({"NUMABIND_LOGFILE=/tmp/x"},
         "NUMABIND_LOGFILE is not a numabind variable (did you mean NUMABIND_LOG_FILE?)");
  Warned({"NUMABIND_DEVICE=none"},
         "NUMABIND_DEVICE is not a numabind variable (did you mean NUMABIND_DEVICES?)");
  Warned({"NUMABIND_Policy=node"},
         "NUMABIND_Policy is not a numabind variable (did you mean NUMABIND_POLICY?)");
  Warned({"NUMABIND_DISABLED=1"},
         "NUMABIND_DISABLED is not a numabind variable (did you mean NUMABIND_DISABLE?)");
}

Test(unknown, without_a_close_name) {
  Warned({"NUMABIND_FOO=1"}, "NUMABIND_FOO is not a numabind variable (numabind vars lists them)");
  Warned({"NUMABIND_=1"}, "NUMABIND_ is not a numabind variable (numabind vars lists them)");
  Warned({"NUMABIND_PLACEMENT_STRATEGY=x"},
         "NUMABIND_PLACEMENT_STRATEGY is not a numabind variable (numabind vars lists them)");
}

Test(unknown, does_not_switch_binding_off) {
  Env env({"NUMABIND_POLICY=node", "PATH=/bin", "NUMABIND_STRICTT=1"});
  Config c;
  Error err;
  cr_assert(Parse(env.get(), &c, &err), "got: %s", err.text);
  cr_assert(c.enabled);
  cr_assert_str_eq(c.policy.text, "node");
  cr_assert_str_eq(err.warning,
                   "NUMABIND_STRICTT is not a numabind variable (did you mean NUMABIND_STRICT?)");
}

Test(unknown, a_bad_value_is_still_an_error_beside_it) {
  Env env({"NUMABIND_FOO=1", "NUMABIND_POLICY=sockte"});
  Config c;
  Error err;
  cr_assert_not(Parse(env.get(), &c, &err));
  cr_assert(strncmp(err.text, "NUMABIND_POLICY=sockte: ", 24) == 0, "got: %s", err.text);
  cr_assert_str_eq(err.warning, "NUMABIND_FOO is not a numabind variable (numabind vars lists them)");
}

Test(unknown, unknown_var_names_one_entry) {
  char w[256];
  cr_assert(UnknownVar("NUMABIND_PLOICY=node", w, sizeof(w)));
  cr_assert_str_eq(w, "NUMABIND_PLOICY is not a numabind variable (did you mean NUMABIND_POLICY?)");
  cr_assert_not(UnknownVar("NUMABIND_POLICY=node", w, sizeof(w)));
  cr_assert_not(UnknownVar("PATH=/bin", w, sizeof(w)));
  cr_assert_not(UnknownVar("NUMABIND_BOGUS", w, sizeof(w)), "no '=': not a variable");
  char small[12];
  cr_assert(UnknownVar("NUMABIND_FOO=1", small, sizeof(small)));
  cr_assert_str_eq(small, "NUMABIND_FO", "cut to the buffer");
}

// A value of a variable whose values are a fixed list: the nearest one named (issue 26).
Test(values, did_you_mean_a_listed_value) {
  Bad({"NUMABIND_POLICY=sockte"},
      "NUMABIND_POLICY=sockte: expected node, socket, exclusive, core-complex, auto, cpus:LIST|LIST... or "
      "nodes:LIST|LIST... (did you mean socket?)");
  Bad({"NUMABIND_POLICY=exlusive"},
      "NUMABIND_POLICY=exlusive: expected node, socket, exclusive, core-complex, auto, cpus:LIST|LIST... or "
      "nodes:LIST|LIST... (did you mean exclusive?)");
  Bad({"NUMABIND_MEMORY=interleaf"},
      "NUMABIND_MEMORY=interleaf: expected local, preferred, bind, interleave, near or weighted (did you "
      "mean interleave?)");
  Bad({"NUMABIND_DEVICES=nnoe"},
      "NUMABIND_DEVICES=nnoe: expected auto, none or PCI bus ids such as 0000:34:00.0,0000:4e:00.0 (did you "
      "mean none?)");
  Bad({"NUMABIND_LOG=inof"}, "NUMABIND_LOG=inof: expected off, warn, info or debug (did you mean info?)");
  Bad({"NUMABIND_LOG_FORMAT=jsno"}, "NUMABIND_LOG_FORMAT=jsno: expected text or json (did you mean json?)");
  Bad({"NUMABIND_FORKS=rank"}, "NUMABIND_FORKS=rank: expected off or ranks (did you mean ranks?)");
  Bad({"NUMABIND_CONTAINER=stirp"}, "NUMABIND_CONTAINER=stirp: expected strip or keep (did you mean strip?)");
  Bad({"NUMABIND_SHARED=of"},
      "NUMABIND_SHARED=of: expected off or an absolute directory such as /dev/shm (did you mean off?)");
  Bad({"NUMABIND_EXPORT=omp,nci"},
      "NUMABIND_EXPORT=omp,nci: unknown item nci: expected none or a comma list of omp, omp-cpus, gpu, nic "
      "(did you mean nic?)");
  // Nothing near: no hint.
  Bad({"NUMABIND_POLICY=numa"},
      "NUMABIND_POLICY=numa: expected node, socket, exclusive, core-complex, auto, cpus:LIST|LIST... or "
      "nodes:LIST|LIST...");
  Bad({"NUMABIND_STRICT=yes"}, "NUMABIND_STRICT=yes: expected 0 or 1");
}

Test(unknown, entries_without_equals_are_not_variables) { ExpectDefaults(Good({"NUMABIND_BOGUS"})); }

// ------------------------------------------------------------------------------------------------ lookup

Test(lookup, finds_values) {
  Env env({"A=1", "NUMABIND_LOG=info", "NUMABIND_LOG_FILE=/x", "EMPTY=", "NOEQ", "A=2"});
  cr_assert_str_eq(Lookup(env.get(), "A"), "1");
  cr_assert_str_eq(Lookup(env.get(), "NUMABIND_LOG"), "info");
  cr_assert_str_eq(Lookup(env.get(), "NUMABIND_LOG_FILE"), "/x");
  cr_assert_str_eq(Lookup(env.get(), "EMPTY"), "");
  cr_assert_null(Lookup(env.get(), "NOEQ"));
  cr_assert_null(Lookup(env.get(), "NUMABIND"));
  cr_assert_null(Lookup(env.get(), "NUMABIND_LOG_"));
  cr_assert_null(Lookup(env.get(), "B"));
  cr_assert_null(Lookup(env.get(), ""));
  cr_assert_null(Lookup(nullptr, "A"));
  cr_assert_null(Lookup(env.get(), nullptr));
  cr_assert_eq(Lookup(env.get(), "A"), env.ptrs[0] + 2);  // points into the environment
}

// ------------------------------------------------------------------------------------------- rank vars

Test(rank_vars, precedence) {
  using numabind::config::kRankVarCount;
  using numabind::config::kRankVars;
  const char* ranks[] = {"LOCAL_RANK",
                         "OMPI_COMM_WORLD_LOCAL_RANK",
                         "MPI_LOCALRANKID",
                         "PMI_LOCAL_RANK",
                         "PALS_LOCAL_RANKID",
                         "MV2_COMM_WORLD_LOCAL_RANK",
                         "JSM_NAMESPACE_LOCAL_RANK",
                         "FLUX_TASK_LOCAL_ID",
                         "MPT_LRANK",
                         "SLURM_LOCALID"};
  const char* sizes[] = {"LOCAL_WORLD_SIZE",
                         "OMPI_COMM_WORLD_LOCAL_SIZE",
                         "MPI_LOCALNRANKS",
                         "PMI_LOCAL_SIZE",
                         "PALS_LOCAL_SIZE",
                         "MV2_COMM_WORLD_LOCAL_SIZE",
                         "JSM_NAMESPACE_LOCAL_SIZE",
                         nullptr,
                         nullptr,
                         "SLURM_STEP_TASKS_PER_NODE"};
  cr_assert_eq(kRankVarCount, 10);
  for (int i = 0; i < kRankVarCount; ++i) {
    cr_assert_str_eq(kRankVars[i].rank, ranks[i]);
    if (sizes[i] == nullptr) {
      cr_assert_null(kRankVars[i].size, "%s", ranks[i]);
    } else {
      cr_assert_str_eq(kRankVars[i].size, sizes[i]);
    }
  }
}

Test(rank_vars, slurm_index_and_rank_var_bit) {
  // The shim finds Slurm's variable by kSlurmRankVar and NUMABIND_RANK_VAR's by kRankVarBit in its set of
  // rank-variable bits: the index must name SLURM_LOCALID and the bit must be past every index.
  cr_assert_str_eq(numabind::config::kRankVars[numabind::config::kSlurmRankVar].rank, "SLURM_LOCALID");
  for (int i = 0; i < numabind::config::kRankVarCount; ++i)
    cr_assert_eq((1u << i) & numabind::config::kRankVarBit, 0u, "%d", i);
}

namespace {
/// The texts of the variable named `name`.
const numabind::config::VarInfo& Var(const char* name) {
  int i = numabind::config::FindVar(name, strlen(name));
  cr_assert_geq(i, 0, "%s", name);
  return numabind::config::kVars[i];
}
}  // namespace

Test(rank_vars, documented_in_the_table) {
  using numabind::config::kRankVarCount;
  using numabind::config::kRankVars;
  const numabind::config::VarInfo* rv = &Var("NUMABIND_RANK_VAR");
  const numabind::config::VarInfo* nr = &Var("NUMABIND_NRANKS");
  cr_assert_not_null(rv);
  cr_assert_not_null(nr);
  for (int i = 0; i < kRankVarCount; ++i) {
    cr_assert_not_null(strstr(rv->meaning, kRankVars[i].rank), "%s", kRankVars[i].rank);
    if (kRankVars[i].size != nullptr)
      cr_assert_not_null(strstr(nr->meaning, kRankVars[i].size), "%s", kRankVars[i].size);
  }
}

// ---------------------------------------------------------------------------------------- the var table

Test(table, every_variable_once_and_known_to_parse) {
  using numabind::config::kVarCount;
  using numabind::config::kVars;
  const char* expected[] = {
      "NUMABIND_POLICY",   "NUMABIND_MEMORY",     "NUMABIND_DEVICES",   "NUMABIND_NRANKS",
      "NUMABIND_RANK_VAR", "NUMABIND_MATCH",      "NUMABIND_FORKS",     "NUMABIND_TOPOLOGY",
      "NUMABIND_SMT",      "NUMABIND_CORE_KINDS", "NUMABIND_LOG",       "NUMABIND_LOG_FORMAT",
      "NUMABIND_LOG_FILE", "NUMABIND_STRICT",     "NUMABIND_DISABLE",   "NUMABIND_SHARED",
      "NUMABIND_BOUND",    "NUMABIND_EXPORT",     "NUMABIND_GUARD",     "NUMABIND_MOVE",
      "NUMABIND_LOCALITY", "NUMABIND_BY_DEVICE",  "NUMABIND_CONTAINER", "NUMABIND_CONFIG_FILE"};
  cr_assert_eq(kVarCount, 24);
  for (int i = 0; i < kVarCount; ++i) {
    cr_assert_str_eq(kVars[i].name, expected[i]);
    char accepts[256];
    cr_assert(numabind::config::VarValues(i, accepts, sizeof(accepts)) > 0);
    // A variable's values come from its row or its words, never both (config/choices.h).
    cr_assert((kVars[i].values == nullptr) == (numabind::config::ChoicesOfVar(i) != nullptr), "%s",
              kVars[i].name);
    cr_assert((kVars[i].dflt == nullptr) != (kVars[i].unset == nullptr), "%s: a default or an unset text",
              kVars[i].name);
    if (kVars[i].dflt != nullptr) {  // a written default is a value the variable accepts
      Good({std::string(kVars[i].name) + "=" + kVars[i].dflt});
    } else {
      cr_assert(strlen(kVars[i].unset) > 0);
    }
    cr_assert(strlen(kVars[i].meaning) > 20);
    cr_assert_null(strchr(kVars[i].meaning, '\n'));
    cr_assert_eq(numabind::config::FindVar(kVars[i].name, strlen(kVars[i].name)), i);
    cr_assert_str_eq(numabind::config::kVarNames[i], kVars[i].name);
    // An empty value is accepted by every variable, so a known name alone never fails.
    Good({std::string(kVars[i].name) + "="});
  }
  cr_assert_eq(numabind::config::FindVar("NUMABIND_LOG_FILE", 15), -1);  // a prefix is not a name
  cr_assert_eq(numabind::config::FindVar("NUMABIND_LOG", 13), -1);
}

Test(table, defaults_agree_with_config) {
  Config c;
  cr_assert_str_eq(Var("NUMABIND_MEMORY").dflt, numabind::config::MemoryName(c.memory));
  cr_assert_str_eq(Var("NUMABIND_DEVICES").dflt, c.devices.text);
  cr_assert_str_eq(Var("NUMABIND_LOG").dflt, "warn");
  cr_assert_eq(c.log, LogLevel::kWarn);
  cr_assert_str_eq(Var("NUMABIND_MATCH").dflt, numabind::config::kDefaultMatch);
  cr_assert_str_eq(Var("NUMABIND_STRICT").dflt, "0");
  cr_assert_str_eq(Var("NUMABIND_DISABLE").dflt, "0");
  cr_assert_str_eq(Var("NUMABIND_SHARED").dflt, c.shared);
  for (const char* unset : {"NUMABIND_POLICY", "NUMABIND_NRANKS", "NUMABIND_RANK_VAR", "NUMABIND_TOPOLOGY",
                            "NUMABIND_LOG_FILE", "NUMABIND_BOUND"}) {
    cr_assert_null(Var(unset).dflt, "%s", unset);
  }
}

// The shim must honour strictness and the log file whatever else is wrong, and say which variable is bad.
Test(all, reads_every_variable_after_an_error) {
  Env env(
      {"NUMABIND_POLICY=node", "NUMABIND_MEMORY=fast", "NUMABIND_STRICT=1", "NUMABIND_LOG_FILE=/tmp/x.log"});
  Config c;
  Error err;
  cr_assert_not(Parse(env.get(), &c, &err));
  cr_expect(c.strict);
  cr_expect_str_eq(c.log_file, "/tmp/x.log");
  cr_expect_str_eq(numabind::config::MemoryName(c.memory), "local");
  cr_expect_str_eq(err.text,
                   "NUMABIND_MEMORY=fast: expected local, preferred, bind, interleave, near or weighted");
}

Test(rank_value, digits_below_the_cap) {
  using numabind::config::ParseRankValue;
  using numabind::config::RankValue;
  uint32_t v = 7;
  cr_expect(ParseRankValue("0", &v) == RankValue::kOk);
  cr_expect_eq(v, 0u);
  cr_expect(ParseRankValue("1048575", &v) == RankValue::kOk);
  cr_expect_eq(v, 1048575u);
  cr_expect(ParseRankValue("007", &v) == RankValue::kOk);
  cr_expect_eq(v, 7u);
}

Test(rank_value, malformed_and_too_large) {
  using numabind::config::ParseRankValue;
  using numabind::config::RankValue;
  for (const char* s : {"", " 1", "1 ", "1x", "-1", "+1", "0(x", "0(x2)", "1.0", "0x1", "99999999999x"}) {
    uint32_t v = 7;
    cr_expect(ParseRankValue(s, &v) == RankValue::kMalformed, "'%s' accepted", s);
    cr_expect_eq(v, 7u, "'%s' wrote the rank", s);
  }
  cr_expect(ParseRankValue(nullptr, nullptr) == RankValue::kMalformed);
  for (const char* s : {"1048576", "4294967295", "4294967296", "99999999999", "184467440737095516160"}) {
    uint32_t v = 7;
    cr_expect(ParseRankValue(s, &v) == RankValue::kTooLarge, "'%s' not too large", s);
    cr_expect_eq(v, 7u);
  }
}

Test(table, every_word_of_a_variable_reads_and_its_error_offers_them_all) {
  using numabind::config::Choices;
  for (int i = 0; i < numabind::config::kVarCount; ++i) {
    const Choices* c = numabind::config::ChoicesOfVar(i);
    if (c == nullptr) continue;
    std::string name = numabind::config::kVars[i].name;
    for (int w = 0; w < c->count; ++w) {
      // The forms written in capitals (cpus:LIST|LIST..., BUSID,BUSID...) stand for values, not words.
      bool form = strpbrk(c->words[w], "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != nullptr;
      if (!form) Good({name + "=" + c->words[w]});
    }
    std::string error = BadPrefix({name + "=no-such-word"}, (name + "=no-such-word: expected ").c_str());
    for (int w = 0; w < c->count; ++w) {
      bool form = strpbrk(c->words[w], "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != nullptr;
      if (!form)
        cr_expect(error.find(c->words[w]) != std::string::npos, "%s: %s", error.c_str(), c->words[w]);
    }
  }
}

// The prefix and NUMABIND_BOUND's entry are spelled once (config/vars.h): every name has the prefix, and the
// entry is NUMABIND_BOUND's name with its '='.
Test(table, the_prefix_and_the_bound_entry_agree_with_the_names) {
  using numabind::config::kVarNames;
  for (int i = 0; i < numabind::config::kVarCount; ++i)
    cr_expect(strncmp(kVarNames[i], numabind::config::kVarPrefix, numabind::config::kVarPrefixLen) == 0, "%s",
              kVarNames[i]);
  cr_expect_eq(std::string(kVarNames[numabind::config::kVarBound]) + "=", numabind::config::kBoundEntry);
}
