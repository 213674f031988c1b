#!/bin/bash
# Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
# A job script in front of a Python fork pool (tests/shim/fork_pool_test.cc): shell_pool.sh OUT.
# Starts a background subshell that lives for the whole job, then a Pool(2) through a pyenv-style python3
# (scripts/pyenv/python3) that writes its workers' "PID CPUS" to OUT.workers; then writes the subshell's
# CPUs ("Cpus_allowed_list: LIST") to OUT.background.
here=$(cd "$(dirname "$0")" && pwd)
( while sleep 0.05; do :; done ) &
background=$!
PATH="$here/pyenv:$PATH" python3 "$here/fork_pool.py" fork pool 2 "$1.workers" || exit 1
grep Cpus_allowed_list "/proc/$background/status" > "$1.background"
kill "$background"
