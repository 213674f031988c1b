# shellcheck shell=bash disable=SC2034,SC2154  # sets the L_* globals that lib.sh reads; repo from guest_suite.sh
# A real one-node Slurm in the guest (issue 9; sourced by guest_suite.sh, which has lib.sh): munged,
# slurmctld and slurmd on this guest, configured as the cluster suite does (tests/cluster/slurm_conf.sh:
# every file in a scratch folder, SlurmUser=root, proctrack/linuxproc, task/none, cons_tres CR_CPU), the node
# named after the guest's host name with all its CPUs. Then `srun -n4` with the library, NUMABIND_POLICY=node
# and NUMABIND_MEMORY=bind exported into srun's environment, as a user would: slurmstepd starts the tasks and
# each binds itself at start-up. Layout A's expectation, by hand: task r on node r, CPUs 4r..4r+3, its 16 MB
# of touched pages on node r. The daemons are stopped before slurm_checks returns (slurm/teardown).
# shellcheck source=../cluster/slurm_conf.sh
. "$repo/tests/cluster/slurm_conf.sh"   # slurm_conf_write, munge_start, wait_until
SL_DIR="" SL_PIDS=() SL_WHY="" SL_IF=nbslurm0 SL_ADDR=10.250.9.1
SL_CG=/sys/fs/cgroup/system.slice SL_CG_MADE=0

sl_idle() { [ "$(sinfo -h -N -o '%T' 2>/dev/null)" = idle ]; }
sl_alive() { local p; for p in "${SL_PIDS[@]}"; do kill -0 "$p" 2>/dev/null || return 1; done; }

# Starts munged, slurmctld and slurmd and waits until the node is idle (60 s: daemons start slowly under
# emulation). Returns 1 with SL_WHY set.
slurm_up() {
  local host cpus end=$((SECONDS + 60))
  read -r host < /proc/sys/kernel/hostname
  cpus=$(getconf _NPROCESSORS_ONLN)
  SL_DIR=$WORK/slurm
  rm -rf "$SL_DIR" && mkdir -p "$SL_DIR" && chmod 700 "$SL_DIR" || { SL_WHY="cannot make $SL_DIR"; return 1; }
  # Slurm resolves even numeric addresses with AI_ADDRCONFIG, which finds no IPv4 address while the guest has
  # only loopback: the node gets an address on a dummy interface, as a real node has one on its network.
  modprobe dummy 2>/dev/null
  ip link add "$SL_IF" type dummy && ip addr add "$SL_ADDR/32" dev "$SL_IF" && ip link set "$SL_IF" up \
    || { SL_WHY="cannot add the dummy interface $SL_IF with $SL_ADDR"; return 1; }
  slurm_conf_write "$SL_DIR" task/none "$host($SL_ADDR)" \
    "NodeName=$host NodeAddr=$SL_ADDR CPUs=$cpus State=UNKNOWN" || { SL_WHY="cannot write slurm.conf"; return 1; }
  # Slurm 22.05's cgroup/v2 plugin, which slurmd loads even with task/none, asks systemd over D-Bus for a
  # scope; the guest has no systemd: slurmd makes the cgroups itself, under system.slice.
  echo "IgnoreSystemd=yes" > "$SL_DIR/cgroup.conf"
  [ -d "$SL_CG" ] || { mkdir "$SL_CG" && SL_CG_MADE=1; } || { SL_WHY="cannot make $SL_CG"; return 1; }
  mkdir -p "$SL_DIR/spool-$host"
  export SLURM_CONF=$SL_DIR/slurm.conf
  munge_start "$SL_DIR"; [ -n "$MUNGE_PID" ] && SL_PIDS+=("$MUNGE_PID")
  [ -z "$MUNGE_WHY" ] || { SL_WHY=$MUNGE_WHY; return 1; }
  slurmctld -D -i -f "$SLURM_CONF" </dev/null >>"$SL_DIR/slurmctld.out" 2>&1 &
  SL_PIDS+=($!)
  slurmd -D -N "$host" -f "$SLURM_CONF" </dev/null >>"$SL_DIR/slurmd.out" 2>&1 &
  SL_PIDS+=($!)
  until sl_idle; do
    if ! sl_alive || [ $SECONDS -ge $end ]; then
      SL_WHY="node $host not idle ($(sinfo -h -N -o '%N %T' 2>&1 | tr '\n' ' '))"
      SL_WHY+="; $(cat "$SL_DIR"/slurmctld.log "$SL_DIR"/slurmd-*.log "$SL_DIR"/*.out 2>/dev/null | grep -i -E 'error|fatal' | tail -n 2 | tr '\n' ' ')"
      return 1
    fi
    sleep 0.5
  done
}

# Stops every daemon slurm_up started (TERM, then KILL after 10 s), removes the interface and the cgroups,
# and fails slurm/teardown if any of them is left.
slurm_down() {
  local p left=""
  for p in "${SL_PIDS[@]}"; do kill "$p" 2>/dev/null; done
  wait_until 10 sl_all_gone || for p in "${SL_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
  for p in "${SL_PIDS[@]}"; do wait "$p" 2>/dev/null; kill -0 "$p" 2>/dev/null && left+=" process $p,"; done
  SL_PIDS=()
  unset SLURM_CONF
  ip link del "$SL_IF" 2>/dev/null
  # the cgroups slurmd made, deepest first (empty now that its processes are gone)
  [ "$SL_CG_MADE" = 1 ] && find "$SL_CG" -depth -type d -exec rmdir {} + 2>/dev/null && SL_CG_MADE=0
  [ "$SL_CG_MADE" = 1 ] && left+=" cgroup $SL_CG,"
  ip link show "$SL_IF" >/dev/null 2>&1 && left+=" interface $SL_IF,"
  verdict slurm/teardown "${left:+left behind:${left%,}}"
}
sl_all_gone() { local p; for p in "${SL_PIDS[@]}"; do kill -0 "$p" 2>/dev/null && return 1; done; return 0; }

slurm_checks() {
  local t0=$SECONDS
  if ! slurm_up; then
    fail slurm/up "$SL_WHY"
    fail launch/slurm-srun-node-bind "Slurm did not start"
  else
    pass slurm/up; echo "note: one-node Slurm idle after $((SECONDS - t0)) s"
    L_ARGS=(--touch 16) L_LOG_SAYS="at start-up"
    launch_case slurm-srun-node-bind slurm 4 node none bind "0-3/0 4-7/1 8-11/2 12-15/3"
    L_ARGS=() L_LOG_SAYS=""
  fi
  slurm_down
}
