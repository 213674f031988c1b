// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_HOT marks a function that every configured process runs at start-up (the constructor's path:
// scanning the environment, parsing the configuration, deciding whether it is a rank, reading the site
// file and the proof of a rank started bound), or that a fork child runs before its exec (the fork and
// exec wrappers, FindRank). GCC puts such a function in .text.hot, which the linker places together near
// the start of the library, and shim/entry/hot_data.ld.in puts their files' read-only data beside it: each
// page touched elsewhere is a fault in every program the library is preloaded into, and a fork child has only
// the pages its parent touched.

#ifndef NUMABIND_BASE_HOT_H_
#define NUMABIND_BASE_HOT_H_

#define NUMABIND_HOT __attribute__((hot))

#endif  // NUMABIND_BASE_HOT_H_
