# numabind: `make` builds the library and the command, `make test` runs every test, `make demo` shows it.
# Sources are found by folder, so adding a file needs no change here.

BUILD ?= build
PREFIX ?= /usr/local
CXX ?= g++
CC ?= gcc
OPT ?= -O2
PYTHON ?= /usr/bin/python3
# The planner helper the library runs, compiled into it: never looked up relative to the library or the
# current directory. Installed builds set it to the installed command.
HELPER_PATH ?= $(abspath $(BUILD))/numabind

WARN := -Wall -Wextra -Wshadow -Wno-unused-parameter
CXXFLAGS_BASE := -std=c++17 $(OPT) -g -fPIC $(WARN) -I. -D_GNU_SOURCE
# Code that ends up in libnumabind.so links libc alone: no exceptions, RTTI or guarded statics (each would
# pull in libstdc++), hidden symbols so that only the version script's names are exported.
# -fno-tree-loop-distribute-patterns: no memset/memcpy calls made up from loops, so that child-side code
# calls nothing through the PLT (lazy binding in a vfork child would write the parent's GOT).
PURE_FLAGS := -fno-exceptions -fno-rtti -fno-threadsafe-statics -fvisibility=hidden \
              -fno-stack-protector -fno-tree-loop-distribute-patterns
HWLOC_LIBS := $(shell pkg-config --libs hwloc 2>/dev/null || echo -lhwloc)

PURE_SRCS := $(wildcard config/*.cc) core/plan_basis.cc
CORE_SRCS := $(filter-out $(PURE_SRCS),$(wildcard core/*.cc))
SHIM_SRCS := $(wildcard shim/*.cc)
SHIM_ASM := $(wildcard shim/*.S)
CLI_SRCS := $(wildcard cli/*.cc)
HELPER_SRCS := $(wildcard tests/shim/helpers/*.c)

obj = $(patsubst %.cc,$(BUILD)/obj/%.o,$(1))
pureobj = $(patsubst %.cc,$(BUILD)/pure/%.o,$(1))

LIB := $(BUILD)/libnumabind.so
CLI := $(BUILD)/numabind
EMPTYLIB := $(BUILD)/libempty.so
HELPERS := $(patsubst tests/shim/helpers/%.c,$(BUILD)/helpers/%,$(HELPER_SRCS))
# The launcher again, linked with musl (musl-tools), when musl-gcc is there: the shim must run under musl.
MUSL_CC ?= musl-gcc
MUSL_HELPERS := $(if $(shell command -v $(MUSL_CC) 2>/dev/null),$(BUILD)/helpers/musl/entry_launcher)

TEST_LAYERS := $(notdir $(wildcard tests/core tests/config tests/cli tests/shim))
TEST_BINS := $(foreach l,$(TEST_LAYERS),$(if $(wildcard tests/$(l)/*_test.cc),$(BUILD)/tests/$(l)_test))

.PHONY: FORCE all test test-unit test-vm stress demo install check-abi deps clean bench readme-vars
all: $(LIB) $(CLI) $(EMPTYLIB) $(HELPERS) $(MUSL_HELPERS)

$(BUILD)/pure/%.o: %.cc
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS_BASE) $(PURE_FLAGS) $(EXTRA_FLAGS) -MMD -MP -c $< -o $@

# prepare.o is rebuilt whenever HELPER_PATH changes (the stamp holds the last value).
$(BUILD)/pure/shim/prepare.o: EXTRA_FLAGS = -DNUMABIND_HELPER_PATH='"$(HELPER_PATH)"'
$(BUILD)/pure/shim/prepare.o: $(BUILD)/helper-path.stamp
$(BUILD)/helper-path.stamp: FORCE
	@mkdir -p $(dir $@)
	@echo '$(HELPER_PATH)' | cmp -s - $@ || echo '$(HELPER_PATH)' > $@
FORCE:

$(BUILD)/obj/%.o: %.cc
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS_BASE) -MMD -MP -c $< -o $@

$(BUILD)/pure/shim/%.o: shim/%.S
	@mkdir -p $(dir $@)
	$(CC) -c $< -o $@

# The shim: linked by the C driver so libstdc++ is never added; -z defs catches anything that needs more.
$(LIB): $(call pureobj,$(SHIM_SRCS) $(PURE_SRCS)) $(patsubst %.S,$(BUILD)/pure/%.o,$(SHIM_ASM)) shim/exports.map
	$(CC) -shared -Wl,-z,defs -Wl,--version-script=shim/exports.map -Wl,--gc-sections \
	  -o $@ $(filter %.o,$^)

$(CLI): $(call obj,$(CLI_SRCS) $(CORE_SRCS)) $(call pureobj,$(PURE_SRCS))
	$(CXX) -o $@ $^ $(HWLOC_LIBS)

# The floor for any preloaded library, for the benchmarks and the shim's tests.
$(EMPTYLIB): tests/shim/empty.c
	@mkdir -p $(dir $@)
	$(CC) -shared -fPIC -O2 -o $@ $<

$(BUILD)/helpers/%: tests/shim/helpers/%.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -D_GNU_SOURCE -pthread -o $@ $<

$(BUILD)/helpers/musl/%: tests/shim/helpers/%.c
	@mkdir -p $(dir $@)
	$(MUSL_CC) -O2 -g -Wall -Wextra -D_GNU_SOURCE -pthread -o $@ $<

# The shim's tests run programs with the library preloaded; the helper launch alone is also linked into them,
# to be tested against plain commands (it needs libc alone).
TEST_UNITS_shim := shim/helper_launch.cc

# Keep the test objects (intermediate files of the pattern rules below) so that a rebuild is incremental.
.SECONDARY:

.SECONDEXPANSION:
# One Criterion binary per test layer (its *_test.cc files and their helpers); it links what that layer tests (never the shim: shim tests run
# helper programs with LD_PRELOAD and read what they report).
$(BUILD)/tests/%_test: $$(call obj,$$(wildcard tests/$$*/*.cc) $$(TEST_UNITS_$$*)) $(call obj,$(CORE_SRCS) $(filter-out cli/main.cc,$(CLI_SRCS))) $(call pureobj,$(PURE_SRCS))
	@mkdir -p $(dir $@)
	$(CXX) -o $@ $^ $(HWLOC_LIBS) -lcriterion
deps:
	@scripts/install-deps.sh --check >/dev/null 2>&1 || scripts/install-deps.sh

# Builds in parallel unless make was given -j itself.
JOBS := $(if $(findstring j,$(firstword -$(MAKEFLAGS))),,-j$(shell nproc))

test: deps
	$(MAKE) $(JOBS) all $(TEST_BINS)
	BUILD=$(BUILD) scripts/run-tests.sh $(TEST_BINS)

test-unit: all $(TEST_BINS)
	BUILD=$(BUILD) SKIP_VM=1 scripts/run-tests.sh $(TEST_BINS)

test-vm: deps all
	BUILD=$(BUILD) tests/vm/run.sh

# Stress at full size: 10,000 spawns on this machine (make test: 1,000), and 1,000 per check in the 16-CPU
# guest, with CPU hotplug and a shrinking cpuset (make test: 100; a spawn costs about 0.3 s under emulation).
stress: deps all $(BUILD)/tests/shim_test
	NUMABIND_STRESS_SPAWNS=10000 $(BUILD)/tests/shim_test --filter 'stress/*' --verbose=1
	BUILD=$(BUILD) VM_LAYOUTS=A VM_SCRIPT='$(CURDIR)/tests/vm/stress_only.sh' VM_STRESS_SPAWNS=1000 VM_TIMEOUT=3600 \
	  tests/vm/run.sh

demo: deps
	$(MAKE) $(JOBS) all
	BUILD=$(BUILD) scripts/demo.sh

bench: deps
	$(MAKE) all
	BUILD=$(BUILD) scripts/bench.sh

# README.md's variable table comes from config/vars.cc; a CLI test fails when they drift.
readme-vars: $(CLI)
	BUILD=$(BUILD) scripts/readme-vars.sh --update README.md

check-abi: $(LIB)
	BUILD=$(BUILD) scripts/check-abi.sh $(LIB)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/share/numabind
	install -m 755 $(CLI) $(DESTDIR)$(PREFIX)/bin/numabind
	install -m 755 $(LIB) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 scripts/*.sh scripts/*.py $(DESTDIR)$(PREFIX)/share/numabind/

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
