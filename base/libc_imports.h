// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Every C library symbol the library uses, declared weak. Force-included into the library's sources
// (PURE_FLAGS), which link with no DT_NEEDED entry at all: the loader then neither maps libc.so.6 as our
// dependency nor checks our symbol versions against its own, which cost every process about 2,300
// instructions (nearly all that an inert library added to starting /bin/true). The symbols resolve in
// the global scope, where the program's C library (glibc or musl) is. Weak, so that a dynamic program
// that has no C library (none in the global scope) still starts: environ is then null and Init does
// nothing. scripts/check-abi.sh fails on any strong undefined symbol: a new one is added here.
// The pragmas before the headers (GCC keeps a builtin such as strlen strong when its declaration comes
// first), the headers after them (clang warns of a weak identifier the file never declares).

#ifndef NUMABIND_BASE_LIBC_IMPORTS_H_
#define NUMABIND_BASE_LIBC_IMPORTS_H_

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

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <sched.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#endif  // NUMABIND_BASE_LIBC_IMPORTS_H_
