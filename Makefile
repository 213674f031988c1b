# numabind: `make` builds the library and the command, `make test` runs every test, `make demo` shows it.
# Sources are found by folder, so adding a file needs no change here. The folder says where the code runs:
#   base/ config/ plan/   libc only, for any context (the library, and the command with the same objects)
#   shim/**               the library, libnumabind.so (libc only; one subfolder per context, docs/design.md)
#   planner/ cli/         the command and its helper mode (hwloc, libstdc++)
# base, config, plan and shim are compiled with PURE_FLAGS; `make -s print-pure-srcs` prints that set for
# scripts/lint.sh, and the fuzz build takes the libc-only layers from the same variables.

BUILD ?= build
PREFIX ?= /usr/local
CXX ?= g++
CC ?= gcc
OPT ?= -O2
PYTHON ?= /usr/bin/python3
# The planner helper the library runs, compiled into it: never looked up relative to the library or the
# current directory. Installed builds set it to the installed command.
HELPER_PATH ?= $(abspath $(BUILD))/numabind
# The library `numabind run` preloads when it is not next to the command (installed: LIBDIR's copy).
SHIM_PATH ?=
# The site file of defaults (docs/site.md), compiled into the library and the command. A build tree reads the
# machine's, /etc/numabind.conf (the package's path, where the cluster suite puts one); what install copies
# reads $(SYSCONFDIR)/numabind.conf, where install puts it (below).
SITE_FILE ?= /etc/numabind.conf

WARN := -Wall -Wextra -Wshadow -Wno-unused-parameter
CXXFLAGS_BASE := -std=c++17 $(OPT) -g -fPIC $(WARN) -I. -D_GNU_SOURCE $(SAN_FLAGS)
# Code that ends up in libnumabind.so links libc alone: no exceptions, RTTI or guarded statics (each would
# pull in libstdc++), hidden symbols so that only the version script's names are exported.
# -fno-tree-loop-distribute-patterns: no memset/memcpy calls made up from loops, so that child-side code
# calls nothing through the PLT (lazy binding in a vfork child would write the parent's GOT).
# (GCC's flag; clang, which builds only the sanitized tests' objects, has no such pass.)
PURE_FLAGS := -fno-exceptions -fno-rtti -fno-threadsafe-statics -fvisibility=hidden -fno-stack-protector \
              $(if $(findstring clang,$(CXX)),,-fno-tree-loop-distribute-patterns) -include base/libc_imports.h
HWLOC_LIBS := $(shell pkg-config --libs hwloc 2>/dev/null || echo -lhwloc)

# The layers, lowest first; each may use the ones before it (the shim: base, config and plan).
LIBC_LAYERS := base config plan
LIBC_SRCS := $(foreach l,$(LIBC_LAYERS),$(wildcard $(l)/*.cc))
SHIM_SRCS := $(sort $(shell find shim -name '*.cc'))
SHIM_ASM := $(sort $(shell find shim -name '*.S'))
# Everything compiled with PURE_FLAGS: the library's sources.
PURE_SRCS := $(LIBC_SRCS) $(SHIM_SRCS)
PLANNER_SRCS := $(wildcard planner/*.cc)
CLI_SRCS := $(wildcard cli/*.cc)
HELPER_SRCS := $(wildcard tests/shim/helpers/*.c)

# Where objects go. Three sources have an installed path compiled in (PATH_SRCS); the package build
# (install-build) compiles only those in its own BUILD and takes every other object from OBJ_BUILD, the
# build tree's, which is compiled with the same flags.
OBJ_BUILD ?= $(BUILD)
PATH_SRCS := cli/run_command.cc shim/launcher/prepare.cc config/site_path.cc
objdir = $(if $(filter $(1),$(PATH_SRCS)),$(BUILD),$(OBJ_BUILD))
obj = $(foreach f,$(1),$(call objdir,$(f))/obj/$(f:.cc=.o))
pureobj = $(foreach f,$(1),$(call objdir,$(f))/pure/$(f:.cc=.o))

LIB := $(BUILD)/libnumabind.so
CLI := $(BUILD)/numabind
EMPTYLIB := $(BUILD)/libempty.so
HELPERS := $(patsubst tests/shim/helpers/%.c,$(BUILD)/helpers/%,$(HELPER_SRCS))
# The launcher again, linked with musl (musl-tools), when musl-gcc is there: the shim must run under musl.
MUSL_CC ?= musl-gcc
MUSL_HELPERS := $(if $(shell command -v $(MUSL_CC) 2>/dev/null),$(BUILD)/helpers/musl/entry_launcher)

# One test binary per folder of tests/ that holds *_test.cc files (tests/<layer>/<unit>_test.cc).
TEST_LAYERS := $(sort $(patsubst tests/%/,%,$(dir $(wildcard tests/*/*_test.cc))))
TEST_BINS := $(foreach l,$(TEST_LAYERS),$(BUILD)/tests/$(l)_test)
# Shell suites: installing and packaging (they build what they install themselves).
TEST_SCRIPTS := $(wildcard tests/pkg/*_test.sh)
# Test code is compiled without optimisation: it is most of the build's compile time (Criterion's macros;
# -O2 -g costs 2.5 times -O0 -g), and what it tests is compiled with OPT.
TEST_OPT ?= -O0
$(BUILD)/obj/tests/%.o: CXXFLAGS_BASE += $(TEST_OPT)

.PHONY: FORCE all print-pure-srcs print-command-srcs print-pure-flags lint test test-unit test-vm test-cluster stress soak demo install install-build uninstall deb man completion check-abi deps deps-demo clean bench readme-vars
all: $(LIB) $(CLI) $(EMPTYLIB) $(HELPERS) $(BUILD)/helpers/no_libc $(MUSL_HELPERS)

# run_command.o is rebuilt whenever SHIM_PATH changes (the stamp holds the last value).
$(call obj,cli/run_command.cc): $(BUILD)/shim-path.stamp
$(call obj,cli/run_command.cc): CXXFLAGS_BASE += -DNUMABIND_SHIM_PATH='"$(SHIM_PATH)"'
$(BUILD)/shim-path.stamp: FORCE
	@mkdir -p $(dir $@)
	@echo '$(SHIM_PATH)' | cmp -s - $@ || echo '$(SHIM_PATH)' >$@

# The compile rules, for BUILD and (the package build) OBJ_BUILD. Every object is compiled again when the
# compiler or the flags change (the stamp holds the last ones, FLAGS_STAMP, expanded once here so that no
# target's own flags reach it): a library object without base/libc_imports.h's weak imports would give the
# library a strong one, and objects of two compilers would mix two sanitizer runtimes in the ASan build.
FLAGS_STAMP := $(CXX) $(CXXFLAGS_BASE) $(PURE_FLAGS)
define compile_rules
$(1)/pure/%.o: %.cc $(1)/flags.stamp
	@mkdir -p $$(dir $$@)
	$$(CXX) $$(CXXFLAGS_BASE) $$(PURE_FLAGS) $$(EXTRA_FLAGS) -MMD -MP -c $$< -o $$@
$(1)/flags.stamp: FORCE
	@mkdir -p $$(dir $$@)
	@echo '$$(FLAGS_STAMP)' | cmp -s - $$@ || echo '$$(FLAGS_STAMP)' >$$@
$(1)/pure/shim/%.o: shim/%.S
	@mkdir -p $$(dir $$@)
	$$(CC) -c $$< -o $$@
$(1)/obj/%.o: %.cc $(1)/flags.stamp
	@mkdir -p $$(dir $$@)
	$$(CXX) $$(CXXFLAGS_BASE) -MMD -MP -c $$< -o $$@
endef
$(foreach d,$(sort $(BUILD) $(OBJ_BUILD)),$(eval $(call compile_rules,$(d))))

# prepare.o is rebuilt whenever HELPER_PATH changes (the stamp holds the last value).
$(BUILD)/pure/shim/launcher/prepare.o: EXTRA_FLAGS = -DNUMABIND_HELPER_PATH='"$(HELPER_PATH)"'
$(BUILD)/pure/shim/launcher/prepare.o: $(BUILD)/helper-path.stamp
$(BUILD)/helper-path.stamp: FORCE
	@mkdir -p $(dir $@)
	@echo '$(HELPER_PATH)' | cmp -s - $@ || echo '$(HELPER_PATH)' > $@
# site_path.o (the library's and the command's) is rebuilt whenever SITE_FILE changes.
$(BUILD)/pure/config/site_path.o: EXTRA_FLAGS = -DNUMABIND_SITE_FILE='"$(SITE_FILE)"'
$(BUILD)/pure/config/site_path.o: $(BUILD)/site-file.stamp
$(BUILD)/site-file.stamp: FORCE
	@mkdir -p $(dir $@)
	@echo '$(SITE_FILE)' | cmp -s - $@ || echo '$(SITE_FILE)' > $@
FORCE:


# The shim: linked by the C driver with no library at all (-nostdlib): nothing in DT_NEEDED, so the loader
# neither maps a dependency nor checks symbol versions for it in every process; the C library symbols it
# uses are the program's, declared weak in base/libc_imports.h (scripts/check-abi.sh checks them, as
# -z defs did). -z noseparate-code: text and read-only data in one segment, which saves every process
# two mmaps and, configured, the page faults of a second mapping (docs/figures.md).
# No start files either: crti/crtbeginS's weak references (__gmon_start__, _ITM_*TMCloneTable,
# __cxa_finalize) would be looked up in every process, in vain for three of them: about 3,000 instructions
# per start (the library has no static destructors: __dso_handle would be undefined). crtendS.o stays for
# the .eh_frame terminator. The Makefile's HOT_SRCS (hot_data.ld.in) put the start-up's read-only data beside its code.
$(LIB): $(call pureobj,$(PURE_SRCS)) $(patsubst %.S,$(OBJ_BUILD)/pure/%.o,$(SHIM_ASM)) $(BUILD)/exports.map \
  $(BUILD)/hot_data.ld
	$(CC) -shared -nostdlib -Wl,-z,noseparate-code -Wl,--version-script=$(BUILD)/exports.map -Wl,--gc-sections \
	  -Wl,-T,$(BUILD)/hot_data.ld -Wl,-soname,libnumabind.so -o $@ $(filter %.o,$^) \
	  $(shell $(CC) -print-file-name=crtendS.o)

# The files whose read-only data goes beside the start-up's code: those that define a NUMABIND_HOT function
# (base/hot.h), found by the attribute itself so that the list cannot drift from the code, and the
# start-up's files that hold only data (the site file's path).
HOT_DATA_ONLY := config/site_path.cc
HOT_SRCS := $(sort $(shell grep -l 'NUMABIND_HOT ' $(PURE_SRCS)) $(HOT_DATA_ONLY))
$(BUILD)/hot_data.ld: shim/entry/hot_data.ld.in Makefile $(PURE_SRCS)
	@mkdir -p $(dir $@)
	printf '    *%s(.rodata .rodata.*)\n' $(HOT_SRCS:.cc=.o) | \
	  awk 'NR == FNR { objs = objs $$0 "\n"; next } /HOT_RODATA/ { printf "%s", objs; next } 1' - $< >$@

# The version script: the exported names of shim/state/wrapped.def, the one list of the wrapped functions.
$(BUILD)/exports.map: shim/entry/exports.map.in shim/state/wrapped.def
	@mkdir -p $(dir $@)
	$(CC) -E -P -x c -I. $< -o $@

$(CLI): $(call obj,$(CLI_SRCS) $(PLANNER_SRCS)) $(call pureobj,$(LIBC_SRCS))
	$(CXX) $(SAN_FLAGS) -o $@ $^ $(HWLOC_LIBS)

# The floor for any preloaded library, for the benchmarks and the shim's tests.
$(EMPTYLIB): tests/shim/empty.c
	@mkdir -p $(dir $@)
	$(CC) -shared -fPIC -O2 -o $@ $<

# A dynamic program with no C library (tests/shim/abi_test.cc): raw system calls, x86-64.
$(BUILD)/helpers/no_libc: tests/shim/no_libc/no_libc.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -nostdlib -fPIE -pie -fno-stack-protector -o $@ $<

$(BUILD)/helpers/%: tests/shim/helpers/%.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -D_GNU_SOURCE -pthread -o $@ $<

# An OpenMP program (NUMABIND_EXPORT=omp's tests): libgomp.
$(BUILD)/helpers/omp_report: tests/shim/helpers/omp_report.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -D_GNU_SOURCE -fopenmp -o $@ $<

# A program whose linked library starts a thread in its constructor, as OpenBLAS's pthread build does: the
# thread exists before the preloaded shim's constructor runs (self-binding must reach it).
$(BUILD)/helpers/libearly_thread.so: tests/shim/early/early_thread.c
	@mkdir -p $(dir $@)
	$(CC) -shared -fPIC -O2 -g -Wall -Wextra -pthread -o $@ $<
$(BUILD)/helpers/thread_report: tests/shim/helpers/thread_report.c $(BUILD)/helpers/libearly_thread.so
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -D_GNU_SOURCE -pthread -o $@ $< -L$(BUILD)/helpers -learly_thread \
	  -Wl,-rpath,'$$ORIGIN'

$(BUILD)/helpers/musl/%: tests/shim/helpers/%.c
	@mkdir -p $(dir $@)
	$(MUSL_CC) -O2 -g -Wall -Wextra -D_GNU_SOURCE -pthread -o $@ $<

# The sources each layer's tests link: the layer and the layers below it, never one above. The shim's tests
# run programs with the library preloaded and never link it; only the helper launch (and base, below it) is
# linked into them, to be tested against plain commands (it needs libc alone).
TEST_DEPS_base := base
TEST_DEPS_config := config base
TEST_DEPS_plan := plan config base
TEST_DEPS_planner := planner plan config base
TEST_DEPS_cli := cli planner plan config base
TEST_DEPS_shim := base
TEST_UNITS_shim := $(wildcard shim/launcher/helper_*.cc) shim/launcher/stop_signals.cc
# A layer's objects: libc-only layers as the library builds them (PURE_FLAGS), the others as the command does.
layer_objs = $(foreach l,$(1),$(if $(filter $(l),$(LIBC_LAYERS)),$(call pureobj,$(wildcard $(l)/*.cc)),$(call obj,$(filter-out cli/main.cc,$(wildcard $(l)/*.cc)))))

# The source sets, for scripts/lint.sh: `make -s --no-print-directory print-pure-srcs`.
print-pure-srcs:
	@echo $(PURE_SRCS)
print-command-srcs:
	@echo $(PLANNER_SRCS) $(CLI_SRCS)
# The library's own flags as clang sees them (scripts/lint.sh: `make -s print-pure-flags CXX=clang++`).
print-pure-flags:
	@echo $(PURE_FLAGS)

# Keep the test objects (intermediate files of the pattern rules below) so that a rebuild is incremental.
.SECONDARY:

.SECONDEXPANSION:
# One Criterion binary per test layer (its *_test.cc files and their helpers), linked with TEST_DEPS_<layer>
# (hwloc only when the planner is among them).
$(BUILD)/tests/%_test: $$(call obj,$$(wildcard tests/$$*/*.cc) $$(TEST_UNITS_$$*)) $$(call layer_objs,$$(TEST_DEPS_$$*))
	@mkdir -p $(dir $@)
	$(CXX) $(SAN_FLAGS) -o $@ $^ $(if $(filter planner,$(TEST_DEPS_$*)),$(HWLOC_LIBS)) -lcriterion

# Fuzzing (fuzz/README.md): one libFuzzer binary per fuzz/*_fuzz.cc, built by clang with ASan and UBSan
# into $(BUILD)/fuzz with the parsers it exercises: the libc-only layers (LIBC_SRCS, as the library builds
# them), the command's log reader (cli/report_log.cc, report_launch.cc, report_said.cc) and the planner's parsers, taken from an archive of the planner layer so that only what the targets
# call is linked (no hwloc). `make fuzz` runs each for FUZZ_SECONDS; `make test` runs a short pass
# (scripts/fuzz.sh --short).
.PHONY: fuzz fuzz-build asan-build
FUZZ_CXX ?= clang++-14
FUZZ_SECONDS ?= 60
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CXXFLAGS := -std=c++17 -O1 -g $(WARN) -I. -D_GNU_SOURCE $(FUZZ_SAN)
FUZZ_UNITS := $(LIBC_SRCS) cli/report_log.cc cli/report_launch.cc cli/report_locality.cc cli/report_said.cc
FUZZ_PLANNER := $(BUILD)/fuzz/libplanner.a
FUZZ_SRCS := $(wildcard fuzz/*_fuzz.cc)
FUZZ_BINS := $(patsubst fuzz/%.cc,$(BUILD)/fuzz/%,$(FUZZ_SRCS))
FUZZ_OBJS := $(patsubst %.cc,$(BUILD)/fuzz/obj/%.o,$(FUZZ_UNITS))

$(BUILD)/fuzz/obj/%.o: %.cc
	@mkdir -p $(dir $@)
	$(FUZZ_CXX) $(FUZZ_CXXFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(FUZZ_PLANNER): $(patsubst %.cc,$(BUILD)/fuzz/obj/%.o,$(PLANNER_SRCS))
	rm -f $@ && ar rcs $@ $^

$(BUILD)/fuzz/%_fuzz: fuzz/%_fuzz.cc $(FUZZ_OBJS) $(FUZZ_PLANNER) fuzz/fuzz_util.h
	@mkdir -p $(dir $@)
	$(FUZZ_CXX) $(FUZZ_CXXFLAGS) -fsanitize=fuzzer -MMD -MP -MF $@.d -o $@ $< $(FUZZ_OBJS) $(FUZZ_PLANNER)

fuzz-build: $(FUZZ_BINS)

fuzz: deps
	$(MAKE) $(JOBS) fuzz-build
	BUILD=$(BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz.sh $(FUZZ_BINS)

# The unit tests (every layer's but the shim's) and the command again, under ASan and UBSan, in $(ASAN_BUILD),
# compiled by clang (ASAN_CXX), which builds them in half the CPU time GCC takes with the sanitizers
# (planner/topology_load.cc: 5.6 s against 10.4 s). The library is not built there (it must not pull in the
# sanitizer runtime): the cli tests that preload it get the plain build's libnumabind.so, libempty.so and
# helpers through links.
ASAN_BUILD := $(BUILD)/asan
ASAN_CXX ?= $(FUZZ_CXX)
ASAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
ASAN_LAYERS := $(filter-out shim,$(TEST_LAYERS))
ASAN_TEST_BINS := $(foreach l,$(ASAN_LAYERS),$(ASAN_BUILD)/tests/$(l)_test)
PLAIN_TEST_BINS := $(foreach l,$(filter-out $(ASAN_LAYERS),$(TEST_LAYERS)),$(BUILD)/tests/$(l)_test)

asan-build: $(LIB) $(EMPTYLIB) $(HELPERS)
	$(MAKE) BUILD=$(ASAN_BUILD) OPT=-O1 CXX=$(ASAN_CXX) SAN_FLAGS="$(ASAN_FLAGS)" $(ASAN_BUILD)/numabind $(ASAN_TEST_BINS)
	ln -sf ../$(notdir $(LIB)) ../$(notdir $(EMPTYLIB)) $(ASAN_BUILD)/  # relative: the path may have a space
	ln -sfn ../helpers $(ASAN_BUILD)/helpers  # the plain programs the cli tests start (report_test)

# What the demo uses (compiler, hwloc, Open MPI's mpirun) and what the tests use: scripts/install-deps.sh.
deps-demo:
	@scripts/install-deps.sh --check demo >/dev/null 2>&1 || scripts/install-deps.sh demo
deps: deps-demo
	@scripts/install-deps.sh --check test >/dev/null 2>&1 || scripts/install-deps.sh test

# Builds in parallel unless make was given -j itself.
JOBS := $(if $(findstring j,$(firstword -$(MAKEFLAGS))),,-j$(shell nproc))

# The build's time goes into the table of times run-tests.sh prints before the total.
# The layers that ASAN_TEST_BINS test run once, sanitized (the plain build of what they test runs in every
# other suite); `make test-unit` runs them all plain. Lint without clang-tidy's static analyzer: `make lint`.
# Everything is built first: a guest started beside the build (tried) burns a third more CPU in all, its
# vCPUs spinning while the compilers hold the machine.
test: deps
	t0=$$(date +%s) && $(MAKE) $(JOBS) all $(PLAIN_TEST_BINS) fuzz-build asan-build && \
	  $(MAKE) --no-print-directory deb >/dev/null && \
	BUILD_SECONDS=$$(($$(date +%s) - t0)) BUILD=$(BUILD) ASAN_TESTS="$(ASAN_TEST_BINS)" FUZZ_TARGETS="$(FUZZ_BINS)" \
	  LINT_ANALYZER=0 scripts/run-tests.sh $(PLAIN_TEST_BINS) $(TEST_SCRIPTS) scripts/lint.sh

test-unit: all $(TEST_BINS)
	BUILD=$(BUILD) SKIP_VM=1 SKIP_CLUSTER=1 scripts/run-tests.sh $(TEST_BINS) $(TEST_SCRIPTS)

# The format check (.clang-format, scripts/format.sh --check) and clang-tidy (.clang-tidy), every warning an
# error. `make test` runs it too, without clang-tidy's static analyzer (LINT_ANALYZER=0: nine tenths of its
# time); CI (.ci/run) runs `make lint` whole.
lint: deps
	BUILD=$(BUILD) scripts/lint.sh

test-vm: deps all deb
	BUILD=$(BUILD) tests/vm/run.sh

# Stress at full size: 10,000 spawns on this machine (make test: 1,000), and 1,000 per check in the 16-CPU
# guest, with CPU hotplug and a shrinking cpuset (make test: 100; a spawn costs about 0.3 s under emulation);
# and the soak of ranks found by order.
stress: deps all $(BUILD)/tests/shim_test
	NUMABIND_STRESS_SPAWNS=10000 $(BUILD)/tests/shim_test --filter 'stress/*' --verbose=1
	$(PYTHON) tests/shim/scripts/order_soak.py $(BUILD) 200 200
	BUILD=$(BUILD) VM_LAYOUTS=A VM_TCG_THREAD=multi VM_SCRIPT='$(CURDIR)/tests/vm/stress_only.sh' \
	  VM_STRESS_SPAWNS=1000 VM_TIMEOUT=3600 tests/vm/run.sh

# The soak of ranks found by order (issue 38; root): 200 launches under NUMABIND_MATCH and 200 fork pools
# under NUMABIND_FORKS, with random SIGKILLs of workers and holders and the shared directory filled and
# emptied (tests/shim/scripts/order_soak.py). About 15 s here; `make stress` runs it, `make test` does not.
soak: deps all
	$(PYTHON) tests/shim/scripts/order_soak.py $(BUILD) 200 200

# A two-host Slurm and ssh cluster in network namespaces (root); `make test` runs it too.
test-cluster: deps all
	BUILD=$(BUILD) tests/cluster/run.sh

demo: deps-demo
	$(MAKE) $(JOBS) all
	BUILD=$(BUILD) scripts/demo.sh

bench: deps
	$(MAKE) all
	BUILD=$(BUILD) scripts/bench.sh

# README.md's variable table comes from config/vars.def; a CLI test fails when they drift.
readme-vars: $(CLI)
	BUILD=$(BUILD) scripts/readme-vars.sh --update README.md

# The planner sweep at full size: every rank count 1..1000 (make test samples 20 of them;
# tests/planner/sweep_test.cc). About 30 s.
.PHONY: sweep
sweep: $(BUILD)/tests/planner_test
	NUMABIND_SWEEP_FULL=1 BUILD=$(BUILD) $(BUILD)/tests/planner_test --filter 'sweep/*' --verbose=1 -j1

# The table of auto's decisions in tests/data/topologies/README.md (tests/cli/auto_table_test.cc checks it).
.PHONY: auto-table
auto-table: $(CLI)
	BUILD=$(BUILD) scripts/auto_table.sh --update

check-abi: $(LIB)
	BUILD=$(BUILD) scripts/check-abi.sh $(LIB)

# ------------------------------------------------------------------------------------ install and deb
# `make install DESTDIR=... PREFIX=/usr` lays numabind out as a distribution package does. The library goes
# where the dynamic loader's $LIB points for 64-bit programs (Debian: lib/x86_64-linux-gnu, from
# `gcc -print-multiarch`), so that /etc/profile.d/numabind.sh can preload "$(PREFIX)/$$LIB/libnumabind.so"
# and a 32-bit program finds the empty 32-bit stub where $LIB points for it (lib32, with Debian's libc6-i386)
# instead of printing a loader error. The helper goes into libexec, at
# the path compiled into the library. What install copies is linked in its own BUILD dir (PKG_BUILD): the two
# objects with an installed path compiled in (PATH_SRCS) are compiled there, every other object is the build
# tree's (OBJ_BUILD), whose helper path is the build tree's.
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
BINDIR := $(PREFIX)/bin
LIBDIR := $(PREFIX)/lib$(if $(MULTIARCH),/$(MULTIARCH))
LIB32DIRS := $(PREFIX)/lib32
LIBEXECDIR := $(PREFIX)/libexec/numabind
MANDIR := $(PREFIX)/share/man
COMPLETIONDIR := $(PREFIX)/share/bash-completion/completions
# zsh's: Debian's zsh reads /usr/share/zsh/vendor-completions; site-functions is zsh's own place elsewhere.
ZSHCOMPLETIONDIR ?= $(PREFIX)/share/zsh/$(if $(filter /usr,$(PREFIX)),vendor-completions,site-functions)
# The site file and the profile.d script: GNU's sysconfdir, $(PREFIX)/etc, except for PREFIX=/usr, a
# distribution's layout (Debian's --sysconfdir=/etc), where they go to /etc/numabind.conf and
# /etc/profile.d/numabind.sh as the package's do. So `make install PREFIX=DIR` writes under DIR alone; a
# login shell reads /etc/profile.d only, so a site that wants the script there says PROFILEDIR=/etc/profile.d.
SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
PROFILEDIR ?= $(SYSCONFDIR)/profile.d
INSTALL_SITE_FILE = $(SYSCONFDIR)/numabind.conf
PKG_BUILD ?= $(BUILD)/pkg$(subst /,_,$(PREFIX))
PKG_PATHS = HELPER_PATH=$(LIBEXECDIR)/numabind SHIM_PATH=$(LIBDIR)/libnumabind.so \
            SITE_FILE=$(INSTALL_SITE_FILE)
STUB32 := $(BUILD)/lib32/libnumabind.so
MANPAGES := $(BUILD)/man/numabind.1 $(BUILD)/man/numabind.7
COMPLETION := $(BUILD)/completion/numabind $(BUILD)/completion/_numabind
# What install puts in place (under DESTDIR).
INSTALLED := $(BINDIR)/numabind $(LIBDIR)/libnumabind.so $(addsuffix /libnumabind.so,$(LIB32DIRS)) \
             $(LIBEXECDIR)/numabind $(MANDIR)/man1/numabind.1 $(MANDIR)/man7/numabind.7 \
             $(COMPLETIONDIR)/numabind $(ZSHCOMPLETIONDIR)/_numabind $(PROFILEDIR)/numabind.sh

# An empty 32-bit library: a 32-bit program with the site-wide LD_PRELOAD loads it and nothing happens.
$(STUB32): packaging/stub32.c
	@mkdir -p $(dir $@)
	$(CC) -m32 -shared -fPIC -O2 -Wl,-soname,libnumabind.so -o $@ $<

# numabind(1) and numabind(7), printed by the command from its command table and config/vars.def.
man: $(MANPAGES)
$(BUILD)/man/numabind.%: $(CLI)
	@mkdir -p $(dir $@)
	$(CLI) man $* >$@.tmp && mv $@.tmp $@

# The bash and zsh completions, printed by the command from its command table and options.
completion: $(COMPLETION)
$(BUILD)/completion/numabind: $(CLI)
	@mkdir -p $(dir $@)
	$(CLI) completion bash >$@.tmp && mv $@.tmp $@
$(BUILD)/completion/_numabind: $(CLI)
	@mkdir -p $(dir $@)
	$(CLI) completion zsh >$@.tmp && mv $@.tmp $@

$(BUILD)/numabind.sh: packaging/profile.sh.in
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' $< >$@

# Links what install copies in PKG_BUILD, with the installed paths compiled in.
install-build:
	$(MAKE) BUILD=$(PKG_BUILD) OBJ_BUILD=$(BUILD) $(PKG_PATHS) PREFIX=$(PREFIX) $(PKG_BUILD)/libnumabind.so \
	  $(PKG_BUILD)/numabind $(PKG_BUILD)/lib32/libnumabind.so $(PKG_BUILD)/numabind.sh \
	  $(PKG_BUILD)/man/numabind.1 $(PKG_BUILD)/man/numabind.7 $(PKG_BUILD)/completion/numabind \
	  $(PKG_BUILD)/completion/_numabind

install: install-build
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(PROFILEDIR) \
	  $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7 $(DESTDIR)$(COMPLETIONDIR) $(DESTDIR)$(ZSHCOMPLETIONDIR) \
	  $(addprefix $(DESTDIR),$(LIB32DIRS))
	install -m 755 $(PKG_BUILD)/numabind $(DESTDIR)$(BINDIR)/numabind
	install -m 644 $(PKG_BUILD)/libnumabind.so $(DESTDIR)$(LIBDIR)/libnumabind.so
	for d in $(LIB32DIRS); do install -m 644 $(PKG_BUILD)/lib32/libnumabind.so $(DESTDIR)$$d/; done
	ln -sf $(shell realpath -m --relative-to=$(LIBEXECDIR) $(BINDIR))/numabind $(DESTDIR)$(LIBEXECDIR)/numabind
	install -m 644 $(PKG_BUILD)/man/numabind.1 $(DESTDIR)$(MANDIR)/man1/numabind.1
	install -m 644 $(PKG_BUILD)/man/numabind.7 $(DESTDIR)$(MANDIR)/man7/numabind.7
	install -m 644 $(PKG_BUILD)/completion/numabind $(DESTDIR)$(COMPLETIONDIR)/numabind
	install -m 644 $(PKG_BUILD)/completion/_numabind $(DESTDIR)$(ZSHCOMPLETIONDIR)/_numabind
	install -m 644 $(PKG_BUILD)/numabind.sh $(DESTDIR)$(PROFILEDIR)/numabind.sh
	# The site file, every line a comment: an administrator's own is never replaced (the package's is a
	# conffile: dpkg asks).
	install -d $(DESTDIR)$(SYSCONFDIR)
	[ -e $(DESTDIR)$(INSTALL_SITE_FILE) ] || \
	  install -m 644 packaging/numabind.conf $(DESTDIR)$(INSTALL_SITE_FILE)

# Removes the files install put there and numabind's own libexec directory, nothing else.
uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	! cmp -s packaging/numabind.conf $(DESTDIR)$(INSTALL_SITE_FILE) || \
	  rm -f $(DESTDIR)$(INSTALL_SITE_FILE)  # not an edited one
	[ ! -d $(DESTDIR)$(LIBEXECDIR) ] || rmdir --ignore-fail-on-non-empty $(DESTDIR)$(LIBEXECDIR)

# build/numabind_<version>_amd64.deb, from a PREFIX=/usr install (scripts/deb.sh).
deb: deps
	rm -rf $(BUILD)/deb-root
	$(MAKE) install PREFIX=/usr DESTDIR=$(BUILD)/deb-root  # relative: the checkout's path may have a space
	BUILD=$(BUILD) scripts/deb.sh $(BUILD)/deb-root

clean:
	rm -rf $(BUILD)

-include $(shell find $(sort $(BUILD) $(OBJ_BUILD)) -name '*.d' -type f 2>/dev/null)

# The pictures of `numabind plan --draw` that tests/cli/draw_test.cc compares with tests/cli/golden/*.txt,
# written anew (review them with `git diff tests/cli/golden`).
.PHONY: golden
golden: all $(BUILD)/tests/cli_test
	mkdir -p tests/cli/golden
	GOLDEN_UPDATE=1 BUILD=$(abspath $(BUILD)) $(BUILD)/tests/cli_test --filter 'draw/golden_pictures'
