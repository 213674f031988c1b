#!/usr/bin/env bash
# The guest's stress and fault checks alone (stress.sh), for `make stress`; run by init.sh in place of
# guest_suite.sh (VM_SCRIPT). Usage: stress_only.sh LAYOUT REPO BUILD.
set -u
layout=$1 repo=$2 build=$3
here=$repo/tests/vm
case $build in *[[:space:]:]*) ln -sfn "$build" /tmp/numabind-build && build=/tmp/numabind-build ;; esac
SHIM=$build/libnumabind.so
WORK=$(mktemp -d /tmp/vm.XXXXXX)
# shellcheck source=lib.sh
. "$here/lib.sh"
# shellcheck source=stress.sh
. "$here/stress.sh"
stress_checks
rm -rf "$WORK"
echo "vm-guest $layout: $PASSED passed, $FAILED failed"
