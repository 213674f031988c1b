// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0

#include <unistd.h>

#include "cli/cli.h"

int main(int argc, char** argv) { return numabind::cli::Main(argc, argv, environ); }
