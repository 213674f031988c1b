// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Every C library symbol the library uses, declared weak. Force-included into the library's sources
// (PURE_FLAGS), which link with no DT_NEEDED entry at all: the loader then neither maps libc.so.6 as our
// dependency nor checks our symbol versions against its own, which cost every process about 2,300
// instructions (half of everything an inert library added to starting /bin/true). The symbols resolve in
// the global scope, where the program's C library (glibc or musl) is. Weak, so that a dynamic program
// that has no C library (none in the global scope) still starts: environ is then null and Init does
// nothing. scripts/check-abi.sh fails on any strong undefined symbol: a new one is added here.
// No include guard: pragmas only.

#pragma weak __errno_location
#pragma weak _exit
#pragma weak clone
#pragma weak close
#pragma weak dl_iterate_phdr
#pragma weak dladdr
#pragma weak dlopen
#pragma weak dlsym
#pragma weak environ
#pragma weak flock
#pragma weak getauxval
#pragma weak geteuid
#pragma weak mkdir
#pragma weak open
#pragma weak program_invocation_name
#pragma weak read
#pragma weak strlen
#pragma weak strncmp
#pragma weak write
