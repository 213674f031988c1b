# numabind: `make` builds the library and the command, `make test` runs every test, `make demo` shows it.
# Sources are found by folder, so adding a file needs no change here.

BUILD ?= build
PREFIX ?= /usr/local
CXX ?= g++
CC ?= gcc
OPT ?= -O2
PYTHON ?= /usr/bin/python3

WARN := -Wall -Wextra -Wshadow -Wno-unused-parameter
CXXFLAGS_BASE := -std=c++17 $(OPT) -g -fPIC $(WARN) -I. -D_GNU_SOURCE $(SAN_FLAGS)
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

TEST_LAYERS := $(notdir $(wildcard tests/core tests/config tests/cli tests/shim))
TEST_BINS := $(foreach l,$(TEST_LAYERS),$(if $(wildcard tests/$(l)/*_test.cc),$(BUILD)/tests/$(l)_test))

.PHONY: all test test-unit test-vm demo install check-abi deps clean bench readme-vars
all: $(LIB) $(CLI) $(EMPTYLIB) $(HELPERS)

$(BUILD)/pure/%.o: %.cc
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS_BASE) $(PURE_FLAGS) -MMD -MP -c $< -o $@

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
	$(CXX) $(SAN_FLAGS) -o $@ $^ $(HWLOC_LIBS)

# The floor for any preloaded library, for the benchmarks and the shim's tests.
$(EMPTYLIB): tests/shim/empty.c
	@mkdir -p $(dir $@)
	$(CC) -shared -fPIC -O2 -o $@ $<

$(BUILD)/helpers/%: tests/shim/helpers/%.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra -D_GNU_SOURCE -pthread -o $@ $<

# Keep the test objects (intermediate files of the pattern rules below) so that a rebuild is incremental.
.SECONDARY:

.SECONDEXPANSION:
# One Criterion binary per test layer (its *_test.cc files and their helpers); it links what that layer tests (never the shim: shim tests run
# helper programs with LD_PRELOAD and read what they report).
$(BUILD)/tests/%_test: $$(call obj,$$(wildcard tests/$$*/*.cc) $$(TEST_UNITS_$$*)) $(call obj,$(CORE_SRCS) $(filter-out cli/main.cc,$(CLI_SRCS))) $(call pureobj,$(PURE_SRCS))
	@mkdir -p $(dir $@)
	$(CXX) $(SAN_FLAGS) -o $@ $^ $(HWLOC_LIBS) -lcriterion
# Fuzzing (fuzz/README.md): one libFuzzer binary per fuzz/*_fuzz.cc, built by clang with ASan and UBSan
# into $(BUILD)/fuzz with the parsers it exercises (FUZZ_UNITS, the same sources the library and the command
# build). `make fuzz` runs each for FUZZ_SECONDS; `make test` runs a short pass (scripts/fuzz.sh --short).
# The shim's tests also link its child-safe glob matcher, to test it against fnmatch directly.
TEST_UNITS_shim += shim/text.cc

.PHONY: fuzz fuzz-build asan-build
FUZZ_CXX ?= clang++-14
FUZZ_SECONDS ?= 60
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CXXFLAGS := -std=c++17 -O1 -g $(WARN) -I. -D_GNU_SOURCE $(FUZZ_SAN)
FUZZ_UNITS := config/config.cc config/vars.cc core/cpu_set.cc core/devices.cc core/plan_basis.cc \
              core/policy_parse.cc core/topology.cc shim/text.cc
FUZZ_SRCS := $(wildcard fuzz/*_fuzz.cc)
# fuzz/rank_count_fuzz.cc fuzzes Slurm's task counts, parsed by config/rank_count.cc (branch h9): built once
# that parser is in the tree.
ifeq ($(wildcard config/rank_count.cc),)
FUZZ_SRCS := $(filter-out fuzz/rank_count_fuzz.cc,$(FUZZ_SRCS))
else
FUZZ_UNITS += config/rank_count.cc
endif
FUZZ_BINS := $(patsubst fuzz/%.cc,$(BUILD)/fuzz/%,$(FUZZ_SRCS))
FUZZ_OBJS := $(patsubst %.cc,$(BUILD)/fuzz/obj/%.o,$(FUZZ_UNITS))

$(BUILD)/fuzz/obj/%.o: %.cc
	@mkdir -p $(dir $@)
	$(FUZZ_CXX) $(FUZZ_CXXFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(BUILD)/fuzz/%_fuzz: fuzz/%_fuzz.cc $(FUZZ_OBJS) fuzz/fuzz_util.h
	@mkdir -p $(dir $@)
	$(FUZZ_CXX) $(FUZZ_CXXFLAGS) -fsanitize=fuzzer -MMD -MP -MF $@.d -o $@ $< $(FUZZ_OBJS)

fuzz-build: $(FUZZ_BINS)

fuzz: deps
	$(MAKE) $(JOBS) fuzz-build
	BUILD=$(BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz.sh $(FUZZ_BINS)

# The unit tests (core, config, cli) and the command again, under ASan and UBSan, in $(ASAN_BUILD). The
# library is not built there (it must not pull in the sanitizer runtime): the cli tests that preload it get
# the plain build's libnumabind.so and libempty.so through links.
ASAN_BUILD := $(BUILD)/asan
ASAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
ASAN_LAYERS := $(filter core config cli,$(TEST_LAYERS))
ASAN_TEST_BINS := $(foreach l,$(ASAN_LAYERS),$(ASAN_BUILD)/tests/$(l)_test)

asan-build: $(LIB) $(EMPTYLIB)
	$(MAKE) BUILD=$(ASAN_BUILD) OPT=-O1 SAN_FLAGS="$(ASAN_FLAGS)" $(ASAN_BUILD)/numabind $(ASAN_TEST_BINS)
	ln -sf $(abspath $(LIB)) $(abspath $(EMPTYLIB)) $(ASAN_BUILD)/

deps:
	@scripts/install-deps.sh --check >/dev/null 2>&1 || scripts/install-deps.sh

# Builds in parallel unless make was given -j itself.
JOBS := $(if $(findstring j,$(firstword -$(MAKEFLAGS))),,-j$(shell nproc))

test: deps
	$(MAKE) $(JOBS) all $(TEST_BINS) fuzz-build asan-build
	BUILD=$(BUILD) ASAN_TESTS="$(ASAN_TEST_BINS)" FUZZ_TARGETS="$(FUZZ_BINS)" scripts/run-tests.sh $(TEST_BINS)

test-unit: all $(TEST_BINS)
	BUILD=$(BUILD) SKIP_VM=1 scripts/run-tests.sh $(TEST_BINS)

test-vm: deps all
	BUILD=$(BUILD) tests/vm/run.sh

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
