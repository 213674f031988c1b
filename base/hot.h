// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_HOT marks a function that every configured process runs at start-up (the constructor's path:
// scanning the environment, parsing the configuration, deciding whether it is a rank). GCC puts such a
// function in .text.hot, which the linker places together, so that a start touches few pages of the
// library's text: each page touched is a fault in every program the library is preloaded into.

#ifndef NUMABIND_BASE_HOT_H_
#define NUMABIND_BASE_HOT_H_

#define NUMABIND_HOT __attribute__((hot))

#endif  // NUMABIND_BASE_HOT_H_
