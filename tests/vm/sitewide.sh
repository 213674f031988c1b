# shellcheck shell=bash
# Site-wide numabind in the guest (sourced by guest_suite.sh, which has lib.sh's pass and fail): the package
# ($BUILD/numabind_<version>_amd64.deb, from `make deb`) installed in the guest's own overlays over /etc,
# /usr and /var, the /etc/ld.so.preload line, a mixed workload compared with a run without numabind, then
# jobs: tests/pkg/sitewide_inside.sh, the same part that runs on the host in a mount namespace (which also
# runs the workload with a job's variables set; too slow under emulation). Here, whose kernel runs 32-bit
# programs (the host's need not), with its 32-bit program and the checks of the lib32 stub (RUN32=1).
sitewide_checks() {
  local deb t line rest ended=0
  deb=$(ls "$build"/numabind_*_amd64.deb 2>/dev/null | head -n 1)
  if [ -z "$deb" ]; then fail sitewide/package "no $build/numabind_*_amd64.deb (make deb)"; return; fi
  t=$(mktemp -d /tmp/sitewide.XXXXXX) && chmod 755 "$t"
  while IFS= read -r line; do
    case $line in
      "PASS "*) pass "sitewide/${line#PASS }" ;;
      "FAIL "*) rest=${line#FAIL }; fail "sitewide/${rest%%: *}" "${rest#*: }" ;;
      END) ended=1 ;;
    esac
  done < <(T=$t DEB=$deb REPORT=$REPORT PROGS=$build/sitewide SITEWIDE_QUICK=1 RUN32=1 INSTALL=extract timeout 300 unshare --mount --propagation private \
             bash "$repo/tests/pkg/sitewide_inside.sh" 2>&1)
  [ "$ended" = 1 ] || fail sitewide/finished "tests/pkg/sitewide_inside.sh stopped early (or took over 300 s)"
  rm -rf "$t"
}
