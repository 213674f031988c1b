# shellcheck shell=bash disable=SC2016,SC2034,SC2086  # scripts for other shells; globals for run.sh; PID lists
# A two-host cluster on this machine, for tests/cluster/run.sh (sourced): each host is a network namespace
# with its own UTS namespace (host name) for every process started on it, joined to the others by a bridge
# that lives in a namespace of its own, so nothing is added to the machine's own network. One munged for all
# (a socket in the scratch folder), slurmctld on the first host, one slurmd and one sshd per host.
#
# cluster_up TASKPLUGIN   start everything (scratch folder, namespaces, daemons); returns 1 with CL_WHY set
# cluster_restart_slurm TASKPLUGIN   restart slurmctld and the slurmds with another slurm.conf
# cluster_restart_all TASKPLUGIN     restart the sshds and the Slurm daemons (after CL_SITE_ETC changed)
# cluster_down           stop every process in the namespaces, delete them and the scratch folder; safe to
#                        call at any point of cluster_up, and twice
# on HOST CMD...         run CMD on HOST (its network and host name), with SLURM_CONF and the ssh wrapper
#
# Names: namespaces nbc<pid>-sw and nbc<pid>-<host>, folder /tmp/numabind-cluster.<pid>.XXXXXX, so that runs
# at the same time never meet, and a later run can remove what a killed one left (cl_reap_stale).
# shellcheck source=slurm_conf.sh
. "$(dirname "${BASH_SOURCE[0]}")/slurm_conf.sh"   # slurm_conf_write, munge_start, wait_until
CL_HOSTS=(nbc1 nbc2)
CL_IPS=(10.250.0.1 10.250.0.2)
CL_IFACE=nb0                    # every host's interface
CL_TAG=nbc$$
CL_DIR=""                       # scratch folder, made by cluster_up
CL_WHY=""
CL_PIDS=()                      # daemons started outside the namespaces (munged)

cl_ns() { echo "$CL_TAG-$1"; }

# on HOST CMD...: CMD in HOST's network namespace, in a UTS namespace of its own named HOST, and in a mount
# namespace of its own where /etc/hosts also names the cluster's hosts. nsenter, not `ip netns exec`: that
# remounts /sys, where slurmd then finds no cgroup mount and exits. With CL_SITE_ETC set (a folder), /etc is
# a read-only overlay with that folder's files over the machine's (cl_etc_mount).
on() {
  local host=$1; shift
  nsenter --net="/var/run/netns/$(cl_ns "$host")" unshare --uts --mount \
    env SLURM_CONF="$CL_DIR/slurm.conf" PATH="$CL_DIR/bin:$PATH" \
    sh -c "hostname \"\$0\" && $(cl_etc_mount) && mount --bind \"\$1\" /etc/hosts && shift && exec \"\$@\"" \
    "$host" "$CL_DIR/hosts" "$@"
}

# The shell command that mounts CL_SITE_ETC's files over /etc (a read-only overlay: no upper folder, so every
# host and daemon can share it), or `true` when CL_SITE_ETC is unset.
CL_SITE_ETC=""
cl_etc_mount() {
  if [ -n "$CL_SITE_ETC" ]; then echo "mount -t overlay nbc-etc -o lowerdir=$CL_SITE_ETC:/etc /etc"; else echo true; fi
}

cl_fail() { CL_WHY=$*; return 1; }

cl_network() {
  local sw i host ns
  sw=$(cl_ns sw)
  ip netns add "$sw" || cl_fail "ip netns add $sw failed" || return
  ip -n "$sw" link add br0 type bridge && ip -n "$sw" link set br0 up || cl_fail "bridge" || return
  for i in "${!CL_HOSTS[@]}"; do
    host=${CL_HOSTS[i]}; ns=$(cl_ns "$host")
    ip netns add "$ns" || cl_fail "ip netns add $ns failed" || return
    ip link add "$CL_IFACE" netns "$ns" type veth peer name "v$i" netns "$sw" \
      && ip -n "$sw" link set "v$i" master br0 up \
      && ip -n "$ns" addr add "${CL_IPS[i]}/24" dev "$CL_IFACE" \
      && ip -n "$ns" link set "$CL_IFACE" up && ip -n "$ns" link set lo up || cl_fail "veth for $host" || return
  done
}

# slurm.conf for TASKPLUGIN (task/none or task/affinity): each node with the machine's online CPUs.
cl_slurm_conf() {
  local i nodes=()
  for i in "${!CL_HOSTS[@]}"; do
    nodes+=("NodeName=${CL_HOSTS[i]} NodeAddr=${CL_IPS[i]} CPUs=$(getconf _NPROCESSORS_ONLN) State=UNKNOWN")
  done
  slurm_conf_write "$CL_DIR" "$1" "${CL_HOSTS[0]}(${CL_IPS[0]})" "${nodes[@]}"
}

cl_munge() {
  munge_start "$CL_DIR" || { [ -n "$MUNGE_PID" ] && CL_PIDS+=("$MUNGE_PID"); cl_fail "$MUNGE_WHY"; return; }
  CL_PIDS+=("$MUNGE_PID")
}

cl_slurm_start() {
  local host pid f end=$((SECONDS + 30)) why
  local -a pids=()
  cl_slurm_conf "$1"
  on "${CL_HOSTS[0]}" slurmctld -D -i -f "$CL_DIR/slurm.conf" </dev/null >>"$CL_DIR/slurmctld.out" 2>&1 &
  pids+=($!)
  for host in "${CL_HOSTS[@]}"; do
    on "$host" slurmd -D -N "$host" -f "$CL_DIR/slurm.conf" </dev/null >>"$CL_DIR/slurmd-$host.out" 2>&1 &
    pids+=($!)
  done
  until cl_nodes_idle; do
    why=""
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null || why="a daemon exited"; done
    [ $SECONDS -lt $end ] || why="nodes not idle after 30 s"
    if [ -n "$why" ]; then
      why+=" ($(on "${CL_HOSTS[0]}" sinfo -h -N -o '%N %T' 2>&1 | tr '\n' ' '))"
      for host in ctld "${CL_HOSTS[@]}"; do
        [ "$host" = ctld ] && f=$CL_DIR/slurmctld.log || f=$CL_DIR/slurmd-$host.log
        why+="; $(basename "$f"): $(grep -h -i -E 'error|fatal' "$f" "${f%.log}.out" 2>/dev/null | tail -n 1)"
      done
      cl_fail "$why"; return
    fi
    sleep 0.2
  done
}

cl_nodes_idle() {
  local out
  out=$(on "${CL_HOSTS[0]}" sinfo -h -N -o '%T' 2>/dev/null) || return 1
  [ "$(grep -c '^idle$' <<<"$out")" -eq ${#CL_HOSTS[@]} ]
}

# Stops every process in the hosts' namespaces: TERM, then KILL what is left after 3 s.
cl_stop_hosts() {
  local host pids sig i
  for sig in TERM KILL; do
    for i in $(seq 15); do
      pids=""
      for host in "${CL_HOSTS[@]}" sw; do
        [ -e "/var/run/netns/$(cl_ns "$host")" ] && pids+=" $(ip netns pids "$(cl_ns "$host")" 2>/dev/null)"
      done
      [ -n "${pids// /}" ] || return 0
      [ "$i" -eq 1 ] && kill -"$sig" $pids 2>/dev/null
      sleep 0.2
    done
  done
  return 1
}

cluster_restart_slurm() {
  cl_stop_hosts_slurm && cl_slurm_start "$1"
}

# cluster_restart_all TASKPLUGIN: every daemon of the hosts (sshd and Slurm's) stopped and started again, in
# mount namespaces made anew (after CL_SITE_ETC changed).
cluster_restart_all() {
  cl_stop_hosts || cl_fail "processes left in the hosts' namespaces" || return
  cl_sshd_start && cl_slurm_start "$1"
}

# Stops the Slurm daemons and whatever they started, keeping the sshds.
cl_stop_hosts_slurm() {
  local pid comm
  for pid in $(for h in "${CL_HOSTS[@]}"; do ip netns pids "$(cl_ns "$h")"; done); do
    comm=$(cat "/proc/$pid/comm" 2>/dev/null) || continue
    [ "$comm" = sshd ] || kill "$pid" 2>/dev/null
  done
  wait_until 10 cl_only_sshd || cl_fail "Slurm daemons still running after 10 s"
}
cl_only_sshd() {
  local pid
  for pid in $(for h in "${CL_HOSTS[@]}"; do ip netns pids "$(cl_ns "$h")"; done); do
    [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = sshd ] || return 1
  done
}

# One sshd per host for MPI over ssh: root logs in with a key made here; clients use the `ssh` wrapper in
# $CL_DIR/bin (first in PATH for `on`), which uses this folder's key and configuration (no known-hosts file).
cl_ssh() {
  local d=$CL_DIR/ssh i
  mkdir -p "$d" "$CL_DIR/bin" && chmod 700 "$d" || cl_fail "ssh folder" || return
  ssh-keygen -q -t ed25519 -N '' -f "$d/id" && ssh-keygen -q -t ed25519 -N '' -f "$d/hostkey" \
    || cl_fail "ssh-keygen failed" || return
  cp "$d/id.pub" "$d/authorized_keys"
  cat > "$d/ssh_config" <<EOF
Host *
  User root
  IdentityFile $d/id
  IdentitiesOnly yes
  StrictHostKeyChecking no
  UserKnownHostsFile /dev/null
  LogLevel ERROR
  BatchMode yes
  ConnectTimeout 10
EOF
  printf '#!/bin/sh\nexec /usr/bin/ssh -F %s "$@"\n' "$d/ssh_config" > "$CL_DIR/bin/ssh"
  chmod 755 "$CL_DIR/bin/ssh"
  cl_sshd_start
}

# One sshd per host (cl_ssh made their configurations), then waits until each one lets root in.
cl_sshd_start() {
  local d=$CL_DIR/ssh i
  for i in "${!CL_HOSTS[@]}"; do
    cat > "$d/sshd_config.$i" <<EOF
ListenAddress ${CL_IPS[i]}
HostKey $d/hostkey
PidFile none
AuthorizedKeysFile $d/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PrintMotd no
AcceptEnv none
EOF
    # sshd needs its privilege separation folder /run/sshd, which this machine may not have: a private
    # mount namespace gets an empty /run of its own instead of a folder left on the machine.
    nsenter --net="/var/run/netns/$(cl_ns "${CL_HOSTS[i]}")" unshare --uts --mount \
      sh -c 'hostname "$0" && mount -t tmpfs -o mode=755 nbc-run /run && mkdir /run/sshd && '"$(cl_etc_mount)"' &&
             mount --bind "$2" /etc/hosts && exec /usr/sbin/sshd -D -e -f "$1"' \
      "${CL_HOSTS[i]}" "$d/sshd_config.$i" "$CL_DIR/hosts" \
      </dev/null >>"$d/sshd.$i.log" 2>&1 &
  done
  for i in "${!CL_HOSTS[@]}"; do
    wait_until 10 on "${CL_HOSTS[0]}" ssh "${CL_IPS[i]}" true \
      || cl_fail "ssh to ${CL_HOSTS[i]} failed: $(tail -n 2 "$d/sshd.$i.log" | tr '\n' ' ')" || return
  done
}

# What a run that could not tear down (SIGKILL) left: namespaces nbc<pid>-* and folders
# /tmp/numabind-cluster.<pid>.* of a <pid> that is gone, the processes in those namespaces and the ones whose
# command line names such a folder (munged). Removed before a run starts; a live run's are never touched.
cl_reap_stale() {
  local ns pid dir p
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^nbc[0-9]+-'); do
    pid=${ns#nbc}; pid=${pid%%-*}
    kill -0 "$pid" 2>/dev/null && continue
    p=$(ip netns pids "$ns" 2>/dev/null); [ -n "$p" ] && kill -KILL $p 2>/dev/null
    ip netns del "$ns" 2>/dev/null
  done
  for dir in /tmp/numabind-cluster.*.*; do
    [ -d "$dir" ] || continue
    pid=${dir#/tmp/numabind-cluster.}; pid=${pid%%.*}
    if ! [[ $pid =~ ^[0-9]+$ ]] || kill -0 "$pid" 2>/dev/null; then continue; fi
    for p in /proc/[0-9]*; do
      grep -q -F -- "$dir/" "$p/cmdline" 2>/dev/null && kill -KILL "${p#/proc/}" 2>/dev/null
    done
    rm -rf "$dir"
  done
}

cluster_up() {
  local i
  cl_reap_stale
  CL_DIR=$(mktemp -d "/tmp/numabind-cluster.$$.XXXXXX") || cl_fail "mktemp failed" || return
  chmod 700 "$CL_DIR"
  { cat /etc/hosts; for i in "${!CL_HOSTS[@]}"; do echo "${CL_IPS[i]} ${CL_HOSTS[i]}"; done; } > "$CL_DIR/hosts"
  cl_network && cl_munge && cl_ssh && cl_slurm_start "$1"
}

cluster_down() {
  local host pid rc=0
  cl_stop_hosts || rc=1
  for pid in "${CL_PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${CL_PIDS[@]}"; do wait "$pid" 2>/dev/null; done
  CL_PIDS=()
  for host in "${CL_HOSTS[@]}" sw; do
    [ -e "/var/run/netns/$(cl_ns "$host")" ] && { ip netns del "$(cl_ns "$host")" || rc=1; }
  done
  [ -n "$CL_DIR" ] && rm -rf "$CL_DIR"
  return $rc
}

# What cluster_down should have left: nothing. Prints what is left.
cluster_leftovers() {
  local host
  for host in "${CL_HOSTS[@]}" sw; do
    [ -e "/var/run/netns/$(cl_ns "$host")" ] && echo "namespace $(cl_ns "$host")"
  done
  [ -n "$CL_DIR" ] && [ -e "$CL_DIR" ] && echo "folder $CL_DIR"
  for pid in "${CL_PIDS[@]}"; do kill -0 "$pid" 2>/dev/null && echo "process $pid"; done
}
