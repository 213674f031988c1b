# shellcheck shell=bash disable=SC2206,SC2034  # token lists split on purpose; globals for the layouts
# What the guest suite's checks share; sourced by tests/vm/guest_suite.sh, which sets NB (the numabind
# command), SHIM (libnumabind.so), REPORT (the rank reporter, tests/shim/helpers/report.c) and WORK (a
# scratch folder in the guest's /tmp). Every check prints "PASS name" or "FAIL name: why".
#
# Expected placements are written by hand from the layout the guest was booted with, one token per local
# rank: "CPUS/NODES" or "CPUS/NODES@DEVICE" (CPUS and NODES in Linux list syntax). They never come from
# numabind itself.

PASSED=0 FAILED=0
# Each result line ends with the seconds since the previous one, to show where the time goes.
T_LAST=${EPOCHREALTIME/[.,]/}
took() { local now=${EPOCHREALTIME/[.,]/}; TOOK="$(((now - T_LAST) / 1000000)).$(((now - T_LAST) / 100000 % 10))s"; T_LAST=$now; }
pass() { PASSED=$((PASSED + 1)); took; echo "PASS $1 [$TOOK]"; }
fail() { FAILED=$((FAILED + 1)); took; echo "FAIL $1: $2 [$TOOK]"; }
verdict() { if [ -z "$2" ]; then pass "$1"; else fail "$1" "$2"; fi; }  # NAME WHY ("" = pass)

# The helpers below return through REPLY and never fork: a fork costs tens of milliseconds in the emulated
# guest, and the checks call them thousands of times.

# Linux list ("0-3,8,9") in canonical form ("0-3,8-9") in REPLY, so that equal sets compare equal.
canon() {
  local IFS=, part a b i out="" start=-1 prev=-2
  local -a bits=()
  for part in $1; do
    [[ $part =~ ^([0-9]+)(-([0-9]+))?$ ]] || { REPLY="bad:$1"; return; }
    a=${BASH_REMATCH[1]}; b=${BASH_REMATCH[3]:-$a}
    for ((i = a; i <= b; i++)); do bits[i]=1; done
  done
  for i in "${!bits[@]}" -1; do
    if [ "$i" -eq $((prev + 1)) ]; then prev=$i; continue; fi
    if [ "$start" -ge 0 ]; then
      if [ "$start" -eq "$prev" ]; then out+=",$start"; else out+=",$start-$prev"; fi
    fi
    start=$i; prev=$i
  done
  REPLY=${out#,}
}

# The members of a Linux list, space separated, in REPLY.
expand_list() {
  local IFS=, part a b i out=""
  for part in $1; do
    [[ $part =~ ^([0-9]+)(-([0-9]+))?$ ]] || continue
    a=${BASH_REMATCH[1]}; b=${BASH_REMATCH[3]:-$a}
    for ((i = a; i <= b; i++)); do out+=" $i"; done
  done
  REPLY=${out# }
}
in_list() { expand_list "$2"; [[ " $REPLY " == *" $1 "* ]]; }  # in_list N LIST

# The value of "KEY" in a one-line JSON object (string or number) in REPLY, "" when absent.
jfield() {
  REPLY=""
  if [[ $1 =~ \"$2\":\"([^\"]*)\" ]] || [[ $1 =~ \"$2\":([^\",}]*) ]]; then REPLY=${BASH_REMATCH[1]}; fi
}
jlist() { jfield "$1" "$2"; canon "$REPLY"; }  # a list-valued field, canonical

# Splits an expected token "CPUS/NODES[@DEVICE]" into E_CPUS E_NODES E_DEV (canonical lists).
split_token() {
  local t=$1
  E_DEV=""; [[ $t == *@* ]] && { E_DEV=${t#*@}; t=${t%@*}; }
  canon "${t%/*}"; E_CPUS=$REPLY
  canon "${t#*/}"; E_NODES=$REPLY
}

need() {  # need NAME FILE...: fails NAME and returns 1 when a file the check needs is missing
  local f
  for f in "${@:2}"; do
    [ -x "$f" ] || [ -f "$f" ] || { fail "$1" "$f is missing (make BUILD=... all builds it)"; return 1; }
  done
}

# plan_case NAME POLICY NRANKS DEVICES "TOKENS..." [PREFIX...]: `numabind plan --json` on the live guest,
# run under PREFIX (e.g. taskset -c 2-13), gives every rank the expected CPUs, nodes and device.
plan_case() {
  local name=plan/$1 policy=$2 n=$3 dev=$4 out rc why="" r o obj got line
  local -a want=($5) objs=()
  need "$name" "$NB" || return
  out=$(timeout -k 5 60 "${@:6}" "$NB" plan --policy "$policy" --ranks "$n" --devices "$dev" --json 2>&1); rc=$?
  [ $rc -eq 0 ] || { fail "$name" "exit $rc: $(head -c 300 <<<"$out" | tr '\n' ' ')"; return; }
  while IFS= read -r line; do [[ $line == *'"rank":'* ]] && objs+=("$line"); done <<<"$out"
  [ ${#objs[@]} -eq "$n" ] || { fail "$name" "${#objs[@]} ranks in the plan, want $n: $(head -c 300 <<<"$out")"; return; }
  for ((r = 0; r < n; r++)); do
    obj=""
    for o in "${objs[@]}"; do jfield "$o" rank; [ "$REPLY" = "$r" ] && obj=$o; done
    split_token "${want[r % ${#want[@]}]}"
    jlist "$obj" cpus; got=$REPLY; jlist "$obj" nodes; got+="/$REPLY"
    [ -n "$E_DEV" ] && { jfield "$obj" device; got+="@$REPLY"; }
    [ "$got" = "$E_CPUS/$E_NODES${E_DEV:+@$E_DEV}" ] || why+="rank $r: want $E_CPUS/$E_NODES${E_DEV:+@$E_DEV} got $got; "
  done
  verdict "$name" "$why"
}

# plan_error_case NAME POLICY NRANKS DEVICES: a plan that cannot place every rank exits 1 and names the
# rank in an "error" entry.
plan_error_case() {
  local name=plan/$1 out rc
  need "$name" "$NB" || return
  out=$(timeout -k 5 60 "$NB" plan --policy "$2" --ranks "$3" --devices "$4" --json 2>&1); rc=$?
  if [ $rc -ne 1 ]; then fail "$name" "exit $rc, want 1: $(head -c 200 <<<"$out" | tr '\n' ' ')"
  elif ! grep -q '"error":"[^"]*rank [0-9]' <<<"$out"; then fail "$name" "no error naming a rank: $(head -c 200 <<<"$out")"
  else pass "$name"; fi
}

# launch KIND NRANKS [LAUNCHER OPTIONS...]: starts NRANKS reporters through a real launcher (KIND bash,
# ompi, hydra or slurm: the real srun) with the shim preloaded and NUMABIND_* from L_ENV (NAME=value...),
# or, for KIND cli-bash, cli-ompi or cli-hydra, under `numabind run L_CLI... --`. L_PREFIX (taskset, a
# cgroup) goes in front; reporters run with L_ARGS. Results in $WORK/ranks, the shim's log in $WORK/log.
L_ENV=() L_CLI=() L_PREFIX=() L_ARGS=() L_LOG_SAYS=""
launch() {
  local kind=$1 n=$2
  rm -f "$WORK/ranks" "$WORK/log"
  local -a pre=(env LD_PRELOAD="$SHIM" NUMABIND_LOG=info NUMABIND_LOG_FILE="$WORK/log" "${L_ENV[@]}")
  if [[ $kind == cli-* ]]; then
    kind=${kind#cli-}
    pre=("$NB" run --log info --log-file "$WORK/log" "${L_CLI[@]}" --)
  fi
  case $kind in
    bash)  # the loop of issue 4, verbatim but for the count
      "${L_PREFIX[@]}" "${pre[@]}" env N="$n" R="$REPORT" F="$WORK/ranks" A="${L_ARGS[*]}" timeout -k 5 90 \
        bash -c 'for ((i = 0; i < N; i++)); do LOCAL_RANK=$i LOCAL_WORLD_SIZE=$N $R --out $F $A & done; wait' ;;
    ompi)
      "${L_PREFIX[@]}" "${pre[@]}" timeout -k 5 120 mpirun.openmpi -np "$n" "${@:3}" \
        "$REPORT" --out "$WORK/ranks" "${L_ARGS[@]}" ;;
    hydra)
      "${L_PREFIX[@]}" "${pre[@]}" timeout -k 5 120 mpiexec.hydra -n "$n" "${@:3}" \
        "$REPORT" --out "$WORK/ranks" "${L_ARGS[@]}" ;;
    self)  # ranks of a launcher that is not preloaded (mpirun's daemons over ssh): each binds itself
      "${L_PREFIX[@]}" env N="$n" R="$REPORT" F="$WORK/ranks" A="${L_ARGS[*]}" P="${pre[*]}" timeout -k 5 90 \
        bash -c 'for ((i = 0; i < N; i++)); do LOCAL_RANK=$i LOCAL_WORLD_SIZE=$N $P $R --out $F $A & done; wait' ;;
    srun)  # tasks as slurmstepd starts them: Slurm's variables, task i first bound to one CPU from the top
      # (task/affinity), the launcher not preloaded; each task binds itself, replacing that binding
      "${L_PREFIX[@]}" env N="$n" R="$REPORT" F="$WORK/ranks" A="${L_ARGS[*]}" P="${pre[*]}" timeout -k 5 90 \
        bash -c 'read -r on < /sys/devices/system/cpu/online; top=${on##*[-,]}
          for ((i = 0; i < N; i++)); do
            taskset -c $((top - i)) env SLURM_LOCALID=$i SLURM_STEP_ID=0 SLURM_STEP_TASKS_PER_NODE="$N(x2)" \
              SLURM_NODEID=1 $P $R --out $F $A &
          done; wait' ;;
    slurm)  # the real srun of tests/vm/slurm.sh's one-node Slurm (SLURM_CONF set there)
      "${L_PREFIX[@]}" "${pre[@]}" timeout -k 5 120 srun -n "$n" "${@:3}" \
        "$REPORT" --out "$WORK/ranks" "${L_ARGS[@]}" ;;
    *) echo "unknown launcher $kind"; return 1 ;;
  esac
}

# The mode NUMABIND_MEMORY=weighted gets from this kernel: MPOL_WEIGHTED_INTERLEAVE from Linux 6.9, plain
# interleave before.
IFS=.- read -r KMAJ KMIN _ < /proc/sys/kernel/osrelease
WEIGHTED_MODE=interleave; [ "$KMAJ" -gt 6 ] || { [ "$KMAJ" -eq 6 ] && [ "$KMIN" -ge 9 ]; } && WEIGHTED_MODE=weighted_interleave
# ranks_match N "TOKENS..." MEMORY: the reports in $WORK/ranks hold one line per rank 0..N-1 with the
# expected CPUs; with MEMORY (local|preferred|bind|interleave|near|weighted) also its memory policy and, when
# the reporter touched memory (--touch), where the pages landed. Prints why not; nothing when they match.
ranks_match() {
  local n=$1 mem=${3:-} r line cpus pol pn pages total on k v kv want_pol nn why=""
  local -a want=($2) lines=() byrank=() pg=()
  [ -s "$WORK/ranks" ] || { echo "no reports"; return; }
  mapfile -t lines < "$WORK/ranks"
  [ ${#lines[@]} -eq "$n" ] || why+="${#lines[@]} reports for $n ranks; "
  for line in "${lines[@]}"; do
    jfield "$line" rank; [[ $REPLY =~ ^[0-9]+$ ]] && byrank[REPLY]=$line
  done
  for ((r = 0; r < n; r++)); do
    line=${byrank[r]:-}
    [ -n "$line" ] || { why+="no report from rank $r; "; continue; }
    split_token "${want[r % ${#want[@]}]}"
    jlist "$line" cpus; cpus=$REPLY
    [ "$cpus" = "$E_CPUS" ] || why+="rank $r on CPUs $cpus, want $E_CPUS; "
    [ -n "$mem" ] || continue
    jfield "$line" policy; pol=$REPLY; jlist "$line" policy_nodes; pn=$REPLY
    expand_list "$E_NODES"; set -- $REPLY; nn=$#
    case $mem in
      local) [ "$pol" = default ] || [ "$pol" = local ] || why+="rank $r memory policy $pol, want default; " ;;
      *) want_pol=$mem  # preferred over several nodes is MPOL_PREFERRED_MANY
         [ "$mem" = preferred ] && [ "$nn" -gt 1 ] && want_pol=preferred_many
         [ "$mem" = near ] && want_pol=preferred_many  # Linux 5.15
         [ "$mem" = weighted ] && want_pol=$WEIGHTED_MODE
         [ "$pol" = "$want_pol" ] && [ "$pn" = "$E_NODES" ] || why+="rank $r memory policy $pol on $pn, want $want_pol on $E_NODES; " ;;
    esac
    [[ $line =~ \"pages\":\{([^}]*)\} ]] || continue
    pages=${BASH_REMATCH[1]//\"/}; total=0; on=0; pg=()
    for kv in ${pages//,/ }; do
      k=${kv%%:*}; v=${kv#*:}; total=$((total + v)); pg[k]=$v
      in_list "$k" "$E_NODES" && on=$((on + v))
    done
    [ "$total" -gt 0 ] || { why+="rank $r touched no pages ($pages); "; continue; }
    [ $((on * 10)) -ge $((total * 9)) ] || why+="rank $r pages on nodes {$pages}, want >= 90% on $E_NODES; "
    [ "$mem" = interleave ] || [ "$mem" = weighted ] || continue
    for k in "$@"; do  # every node of the set holds at least half its fair share
      v=${pg[k]:-0}
      [ $((v * 2 * nn)) -ge "$total" ] || why+="rank $r interleave: node $k has $v of $total pages; "
    done
  done
  echo "$why"
}


# launch_case NAME KIND NRANKS POLICY DEVICES MEMORY "TOKENS..." [LAUNCHER OPTIONS...]: ranks started by
# KIND (see launch) with the shim land where expected; checks the memory policy too when MEMORY is not
# "-", and that the shim logged one bound rank per rank (NAME/log), each saying L_LOG_SAYS when that is set
# (NAME/log-says).
launch_case() {
  local name=launch/$1 kind=$2 n=$3 policy=$4 dev=$5 mem=$6 tokens=$7 why out
  need "$name" "$SHIM" "$REPORT" || return
  L_ENV=(NUMABIND_POLICY="$policy" NUMABIND_DEVICES="$dev") L_CLI=(--policy "$policy" --devices "$dev")
  [ "$mem" != - ] && L_ENV+=(NUMABIND_MEMORY="$mem") && L_CLI+=(--memory "$mem")
  out=$(launch "$kind" "$n" "${@:8}" 2>&1) || { fail "$name" "launcher failed: $(tail -c 300 <<<"$out" | tr '\n' ' ')"; return; }
  [ "$mem" = - ] && mem=""
  why=$(ranks_match "$n" "$tokens" "$mem")
  verdict "$name" "$why"
  local bound=0 said=0 line first=""
  if [ -f "$WORK/log" ]; then
    while IFS= read -r line; do
      [[ $line == "numabind: bound "* ]] && bound=$((bound + 1))
      # the shim may bind a forked worker first and log the exec's "rebound" line with the replacement
      [ -n "$L_LOG_SAYS" ] && [[ $line =~ ^numabind:\ (re)?bound\  ]] && [[ $line == *"$L_LOG_SAYS"* ]] && said=$((said + 1))
      first=${first:-$line}
    done < "$WORK/log"
  fi
  if [ "$bound" -eq "$n" ]; then pass "$name/log"
  else fail "$name/log" "$bound 'bound' lines for $n ranks in the shim's log${first:+, first: $first}"; fi
  [ -z "$L_LOG_SAYS" ] && return
  if [ "$said" -eq "$n" ]; then pass "$name/log-says"
  else fail "$name/log-says" "$said of $n 'bound' lines say '$L_LOG_SAYS'${first:+, first: $first}"; fi
}

# cgroup_enter_prefix CPUS: makes a cpuset cgroup (v2) with those CPUs and sets CG_PREFIX to a command prefix
# that moves itself into it before running the rest. Fails the check "confined-cgroup/setup" when it cannot.
CG=/sys/fs/cgroup/numabind-vm
cgroup_enter_prefix() {
  local err
  err=$( { grep -qw cpuset /sys/fs/cgroup/cgroup.subtree_control || echo +cpuset > /sys/fs/cgroup/cgroup.subtree_control; } 2>&1 \
    && mkdir -p "$CG" 2>&1 && echo "$1" 2>&1 > "$CG/cpuset.cpus") \
    || { fail confined-cgroup/setup "cpuset cgroup $CG with CPUs $1: $err"; return 1; }
  CG_PREFIX=(bash -c 'echo $$ > '"$CG"'/cgroup.procs && exec "$@"' cgroup-enter)
}

# cpu_offline N / cpu_online N: takes a CPU offline (checked: it leaves /sys/devices/system/cpu/online) and
# back; a failure is a failed check, not a skip.
cpu_offline() {
  echo 0 > "/sys/devices/system/cpu/cpu$1/online" 2>/dev/null && ! in_list "$1" "$(< /sys/devices/system/cpu/online)" \
    && { pass "offline/cpu$1-down"; return 0; }
  fail "offline/cpu$1-down" "cannot take CPU $1 offline (online: $(cat /sys/devices/system/cpu/online))"; return 1
}
cpu_online() {
  if echo 1 > "/sys/devices/system/cpu/cpu$1/online" 2>/dev/null && in_list "$1" "$(< /sys/devices/system/cpu/online)"; then
    pass "offline/cpu$1-up"; else fail "offline/cpu$1-up" "CPU $1 did not come back (online: $(cat /sys/devices/system/cpu/online))"; fi
}
