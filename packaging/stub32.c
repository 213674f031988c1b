/* Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
 *
 * libnumabind.so for 32-bit programs: empty. The site-wide LD_PRELOAD names "/usr/$LIB/libnumabind.so";
 * the loader of a 32-bit program expands $LIB to its own directory (lib32 or lib/i386-linux-gnu) and loads
 * this instead of printing "wrong ELF class" or "cannot open shared object file" at every start. numabind
 * binds ranks of 64-bit jobs only. */
int numabind_stub32;
