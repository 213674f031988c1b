// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The site file's path, compiled in (the Makefile's SITE_FILE): in its own object, the one rebuilt when the
// path changes.

#include "config/site_file.h"

#ifndef NUMABIND_SITE_FILE
#define NUMABIND_SITE_FILE "/etc/numabind.conf"  // the Makefile's default (SYSCONFDIR=/etc)
#endif

namespace numabind::config {

const char kSiteFilePath[] = NUMABIND_SITE_FILE;

}  // namespace numabind::config
