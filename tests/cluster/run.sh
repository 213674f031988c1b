#!/usr/bin/env bash
# shellcheck disable=SC2016,SC2206  # single quotes: scripts for the hosts' shells; token lists split on purpose
# The cluster suite (issue 9): a real two-host Slurm cluster with ssh, made of network namespaces on this
# machine (tests/cluster/cluster.sh), and real launchers starting $BUILD/helpers/report as ranks on both
# hosts with libnumabind.so preloaded the way a user would: exported in the shell that runs srun, sbatch,
# salloc, mpirun, mpiexec.hydra or torchrun, never into the Slurm daemons or sshd (but for the site/*
# scenarios, which configure numabind as a site does: docs/site.md). Every check reads every
# rank's report (host, local rank, CPUs, its parent's CPUs) on every host.
# Each "host" sees this machine's CPUs (0-1 here: ALL), so the policy is `cpus:1|0`: local rank 0 on CPU 1,
# rank 1 on CPU 0, the reverse of Slurm's own task/affinity binding, and an unbound rank (ALL) cannot pass.
# Prints "PASS name" / "FAIL name: why" and ends with "cluster: N passed, N failed" (scripts/run-tests.sh
# reads it). A missing prerequisite or not being root fails every scenario; nothing is skipped. The cluster
# is torn down on every exit, Ctrl-C included, and the last check says that nothing is left behind.
# Environment: BUILD (default build), CLUSTER_KEEP=1 keeps the scratch folder's logs in $BUILD/cluster.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=../../scripts/build-link.sh
. "$repo/scripts/build-link.sh"
preloadable_build "${BUILD:-build}"   # LD_PRELOAD cannot carry a path with a space: a link to it then
build=$PRELOAD_BUILD
LIB=$build/libnumabind.so REPORT=$build/helpers/report TORCHRUN=$repo/scripts/torchrun.py
# shellcheck source=../vm/lib.sh
. "$repo/tests/vm/lib.sh"       # pass, fail, verdict, canon, jfield, jlist
# shellcheck source=cluster.sh
. "$here/cluster.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# The daemons must never be preloaded, and each launch sets its own variables: start from none of them.
mapfile -t nb_vars < <(compgen -e | grep '^NUMABIND_')
unset LD_PRELOAD "${nb_vars[@]}"
T0=$SECONDS LAUNCH_PID=""

SCENARIOS=(srun sbatch salloc ompi-alloc hydra-slurm hydra-ssh ompi-ssh torchrun children children/taskset
           children/numactl no-policy unbound strict affinity/control affinity/srun
           affinity/cpu-bind nested report/bound report/unbound report/launches report/launch-unbound site/srun
           site/sbatch site/ompi-ssh)

summary() {
  echo "cluster: took $((SECONDS - T0)) s"
  echo "cluster: $PASSED passed, $FAILED failed"
}

# ---- prerequisites: each missing one fails every scenario ----
missing=()
[ "$(id -u)" -eq 0 ] || missing+=("not root (namespaces and the Slurm daemons need it)")
for c in slurmctld slurmd srun sbatch salloc sinfo munged mungekey /usr/sbin/sshd ssh ssh-keygen ip nsenter \
         unshare mpirun.openmpi mpiexec.hydra taskset numactl /usr/bin/python3 timeout; do
  command -v "$c" >/dev/null || missing+=("no $c (scripts/install-deps.sh installs it)")
done
for f in "$LIB" "$REPORT" "$TORCHRUN"; do [ -e "$f" ] || missing+=("no $f (make all builds it)"); done
# Every host sees the CPUs this script may use; the maps need CPUs 0 and 1.
ALL=$(taskset -pc $$ 2>/dev/null) && canon "${ALL##*: }" && ALL=$REPLY
in_list 0 "$ALL" && in_list 1 "$ALL" || missing+=("the maps need CPUs 0 and 1, this process may use '$ALL'")
if [ ${#missing[@]} -gt 0 ]; then
  why=$(printf '%s; ' "${missing[@]}")
  for s in "${SCENARIOS[@]}"; do fail "$s" "${why%; }"; done
  [ -z "$BUILD_LINK_DIR" ] || rm -rf "$BUILD_LINK_DIR"
  summary; exit 1
fi

# ---- the cluster, torn down on every exit ----
finish() {
  trap '' INT TERM HUP
  local left
  [ "${CLUSTER_KEEP:-0}" = 1 ] && [ -n "$CL_DIR" ] && [ -d "$CL_DIR" ] \
    && rm -rf "$build/cluster" && cp -r "$CL_DIR" "$build/cluster" 2>/dev/null
  cluster_down
  [ -n "$LAUNCH_PID" ] && wait "$LAUNCH_PID" 2>/dev/null  # its processes were in the namespaces
  [ -z "$BUILD_LINK_DIR" ] || rm -rf "$BUILD_LINK_DIR"
  left=$(cluster_leftovers)
  verdict teardown "${left:+left behind: $(tr '\n' ' ' <<<"$left")}"
  summary
  [ "$FAILED" -eq 0 ]
}
trap 'finish; exit $?' EXIT
trap 'fail interrupted "by a signal: the scenarios after this one did not run"; exit 130' INT TERM HUP

if ! cluster_up task/none; then
  for s in "${SCENARIOS[@]}"; do fail "$s" "the cluster did not start: $CL_WHY"; done
  exit 1
fi
echo "cluster: up in $((SECONDS - T0)) s (hosts ${CL_HOSTS[*]}, scratch $CL_DIR)"
W=$CL_DIR/out
# TMPDIR and the library's shared plan basis (NUMABIND_SHARED) in the scratch folder: torchrun's temporary
# folders and the basis files go with it.
mkdir -p "$W" "$CL_DIR/tmp" "$CL_DIR/shm"
HA=${CL_HOSTS[0]} HB=${CL_HOSTS[1]}

# launch NAME SECONDS CMD...: runs CMD on the first host (the login node) with the library preloaded, the
# policy and the log in NAME's files ($W/NAME.log), under a timeout; output in $W/NAME.out. Waits in the
# background so that Ctrl-C is handled at once. NB_POLICY, NB_LOG: the policy and log level ("" = unset);
# NB_ENV: more NAME=value.
NB_POLICY='cpus:1|0' NB_LOG=info NB_ENV=()
launch() {
  local name=${1//\//-} secs=$2; shift 2
  rm -f "$W/$name".*
  on "$HA" env LD_PRELOAD="$LIB" ${NB_POLICY:+NUMABIND_POLICY="$NB_POLICY"} ${NB_LOG:+NUMABIND_LOG="$NB_LOG"} \
    NUMABIND_LOG_FILE="$W/$name.log" NUMABIND_SHARED="$CL_DIR/shm" R="$REPORT" W="$W" TMPDIR="$CL_DIR/tmp" \
    "${NB_ENV[@]}" \
    timeout -k 5 "$secs" "$@" </dev/null >"$W/$name.out" 2>&1 &
  LAUNCH_PID=$!
  wait $LAUNCH_PID
}
launch_failed() { echo "launcher exit $1: $(tail -c 400 "$W/${2//\//-}.out" | tr '\n' ' ')"; }

# ranks_why FILE "CPUS..." ["PARENT-CPUS..."]: FILE holds exactly one report per host and local rank
# 0..n-1, where rank r is on the r-th CPU list (and its parent on the r-th parent list). Prints why not.
ranks_why() {
  local file=$1 host r line got why="" n
  local -a want=($2) parent=(${3:-}) lines=()
  [ -s "$file" ] || { echo "no reports"; return; }
  mapfile -t lines < "$file"
  n=$(( ${#want[@]} * ${#CL_HOSTS[@]} ))
  [ ${#lines[@]} -eq "$n" ] || why+="${#lines[@]} reports, want $n; "
  for host in "${CL_HOSTS[@]}"; do
    for r in "${!want[@]}"; do
      line=$(grep -F "\"host\":\"$host\"," "$file" | grep -F "\"rank\":\"$r\"," | head -n 2)
      [ -n "$line" ] || { why+="$host: no rank $r; "; continue; }
      [ "$(wc -l <<<"$line")" -eq 1 ] || { why+="$host: rank $r reported twice; "; line=${line%%$'\n'*}; }
      canon "${want[r]}"; local w=$REPLY
      jlist "$line" cpus; got=$REPLY
      [ "$got" = "$w" ] || why+="$host rank $r on CPUs $got, want $w; "
      [ ${#parent[@]} -gt 0 ] || continue
      canon "${parent[r]}"; w=$REPLY
      jlist "$line" parent_cpus; got=$REPLY
      [ "$got" = "$w" ] || why+="$host rank $r's parent on CPUs $got, want $w; "
    done
  done
  echo "${why%; }"
}

# outer_why FILE WHAT: FILE holds the report of a program that a job's outer shell (WHAT) ran: both on ALL.
outer_why() {
  local line why=""
  line=$(head -n 1 "$1" 2>/dev/null)
  [ -n "$line" ] || { echo "; no report from $2's program"; return; }
  jlist "$line" cpus; [ "$REPLY" = "$ALL" ] || why+="; a program of $2 on CPUs '$REPLY', want $ALL"
  jlist "$line" parent_cpus; [ "$REPLY" = "$ALL" ] || why+="; $2 on CPUs '$REPLY', want $ALL"
  echo "$why"
}

# log_why NAME N [SAYS]: NAME's log has one "bound" line per rank, N in all (a rank that a launcher bound does
# not bind again, a rank's children do not either), each saying SAYS when given. Prints why not.
log_why() {
  local log=$W/${1//\//-}.log bound said
  bound=$(grep -c '^numabind: bound ' "$log" 2>/dev/null)
  [ "${bound:-0}" -eq "$2" ] || { echo "${bound:-0} 'bound' lines in the log for $2 ranks"; return; }
  [ -n "${3:-}" ] || return 0
  said=$(grep '^numabind: bound ' "$log" | grep -c -F "$3")
  [ "$said" -eq "$2" ] || echo "$said of $2 'bound' lines say '$3': $(grep -m 1 '^numabind: bound ' "$log")"
}

# case_ranks NAME RC FILE "CPUS..." ["PARENT-CPUS..."]: the launch succeeded, FILE's ranks are where they
# should be (ranks_why) and the log has one "bound" line per rank (LOG_SAYS: each says that).
LOG_SAYS=""
case_ranks() {
  local why tokens=($4)
  if [ "$2" -ne 0 ]; then fail "$1" "$(launch_failed "$2" "$1")"; return; fi
  why=$(ranks_why "$3" "$4" "${5:-}")
  [ -n "$why" ] || why=$(log_why "$1" $(( ${#tokens[@]} * ${#CL_HOSTS[@]} )) "$LOG_SAYS")
  verdict "$1" "$why"
}

# ---- scenarios ----

# srun direct: step tasks, started by slurmstepd, which the user's environment never reaches.
launch srun 60 srun -N2 -n4 "$REPORT" --out "$W/srun.ranks"
case_ranks srun $? "$W/srun.ranks" "1 0"

# sbatch: the batch script (SLURM_LOCALID=0, no step) keeps the job's CPUs, and so does a program it runs;
# its srun step's tasks are bound.
cat > "$W/batch.sh" <<'EOF'
#!/bin/bash
"$R" --out "$W/sbatch.script"
srun "$R" --out "$W/sbatch.ranks"
EOF
chmod +x "$W/batch.sh"
launch sbatch 90 sbatch --wait -N2 -n4 -o "$W/sbatch.job" "$W/batch.sh"
rc=$?
if [ $rc -ne 0 ]; then fail sbatch "$(launch_failed $rc sbatch) job: $(tail -c 300 "$W/sbatch.job" 2>/dev/null)"
else
  why=$(ranks_why "$W/sbatch.ranks" "1 0")$(outer_why "$W/sbatch.script" "the batch script")
  why=${why#; }
  verdict sbatch "${why:-$(log_why sbatch 4)}"
fi

# salloc: the command it runs (a shell here) has no Slurm task variables and keeps the allocation's CPUs;
# its srun step's tasks are bound.
launch salloc 60 salloc -N2 -n4 sh -c '"$R" --out "$W/salloc.shell"; srun "$R" --out "$W/salloc.ranks"'
rc=$?
if [ $rc -ne 0 ]; then fail salloc "$(launch_failed $rc salloc)"
else
  why=$(ranks_why "$W/salloc.ranks" "1 0")$(outer_why "$W/salloc.shell" "the salloc shell")
  why=${why#; }
  verdict salloc "${why:-$(log_why salloc 4)}"
fi

# Open MPI's mpirun in an allocation: its daemons are started by srun (step tasks with SLURM_LOCALID=0),
# the ranks by them; the daemons are launchers and keep every CPU.
launch ompi-alloc 90 salloc -N2 -n4 mpirun.openmpi -np 4 "$REPORT" --out "$W/ompi-alloc.ranks"
case_ranks ompi-alloc $? "$W/ompi-alloc.ranks" "1 0" "$ALL $ALL"

# MPICH hydra in an allocation: proxies through srun.
launch hydra-slurm 90 salloc -N2 -n4 mpiexec.hydra -launcher slurm -n 4 "$REPORT" --out "$W/hydra-slurm.ranks"
case_ranks hydra-slurm $? "$W/hydra-slurm.ranks" "1 0" "$ALL $ALL"

# MPICH hydra over ssh: the remote proxy is not preloaded; hydra passes the environment to the ranks.
launch hydra-ssh 60 mpiexec.hydra -launcher ssh -hosts "$HA:2,$HB:2" -n 4 "$REPORT" --out "$W/hydra-ssh.ranks"
case_ranks hydra-ssh $? "$W/hydra-ssh.ranks" "1 0" "$ALL $ALL"

# Open MPI over ssh: the remote orted is not preloaded; the ranks get the library through -x.
launch ompi-ssh 60 mpirun.openmpi --host "$HA:2,$HB:2" -np 4 -x LD_PRELOAD -x NUMABIND_POLICY \
  -x NUMABIND_LOG -x NUMABIND_LOG_FILE -x NUMABIND_SHARED "$REPORT" --out "$W/ompi-ssh.ranks"
case_ranks ompi-ssh $? "$W/ompi-ssh.ranks" "1 0" "$ALL $ALL"

# torchrun on every node, started by srun --ntasks-per-node=1 (a step task that is a launcher): the workers
# are bound, the agent (the workers' parent) keeps every CPU. scripts/torchrun.py works around torch 1.13 on
# Python 3.11.
launch torchrun 120 srun -N2 --ntasks-per-node=1 /usr/bin/python3 "$TORCHRUN" --nnodes 2 --nproc_per_node 2 \
  --rdzv_backend c10d --rdzv_endpoint "$HA:29411" --rdzv_id nbc --no_python "$REPORT" --out "$W/torchrun.ranks"
case_ranks torchrun $? "$W/torchrun.ranks" "1 0" "$ALL $ALL"

# A rank's children keep its binding (the rank is the shell: each report's parent), and a taskset inside a
# rank keeps the CPUs it asked for (rank 0 is on CPU 1 and asks for 0).
launch children 60 srun -N2 -n4 sh -c \
  '"$R" --out "$W/children.ranks"; taskset -c 0 "$R" --out "$W/children.taskset"'
rc=$?
if [ $rc -ne 0 ]; then
  fail children "$(launch_failed $rc children)"; fail children/taskset "the launch failed"
else
  why=$(ranks_why "$W/children.ranks" "1 0" "1 0")
  verdict children "${why:-$(log_why children 4)}"
  verdict children/taskset "$(ranks_why "$W/children.taskset" "0 0" "1 0")"
fi

# numactl inside a rank keeps its narrower set: rank 0 gets both CPUs and runs numactl on CPU 1 (numactl
# only narrows: it refuses CPUs outside the caller's affinity).
NB_POLICY='cpus:0-1|0'
launch children/numactl 60 srun -N2 -n4 sh -c \
  'numactl --physcpubind=$((1 - SLURM_LOCALID)) "$R" --out "$W/children-numactl.ranks"'
case_ranks children/numactl $? "$W/children-numactl.ranks" "1 0" "0-1 0"
NB_POLICY='cpus:1|0'

# Nested launchers (issue 18): each of the 2 tasks per host is a launcher that starts 2 workers
# (LOCAL_RANK 0 and 1). The tasks bind themselves (auto: one CPU each); their workers plan inside their
# task's CPU, never the whole host again, so the two tasks' workers do not overlap: on every host, each
# worker is on its parent's (its task's) CPU, and the tasks are on different CPUs.
NB_POLICY=auto NB_ENV=(NUMABIND_DEVICES=none)
launch nested 60 srun -N2 --ntasks-per-node=2 sh -c \
  'LOCAL_RANK=0 LOCAL_WORLD_SIZE=2 "$R" --out "$W/nested.ranks" & \
   LOCAL_RANK=1 LOCAL_WORLD_SIZE=2 "$R" --out "$W/nested.ranks"; wait'
rc=$?
NB_POLICY='cpus:1|0' NB_ENV=()
if [ $rc -ne 0 ]; then
  fail nested "$(launch_failed $rc nested)"
else
  why=""
  for host in "${CL_HOSTS[@]}"; do
    mapfile -t lines < <(grep -F "\"host\":\"$host\"," "$W/nested.ranks")
    [ ${#lines[@]} -eq 4 ] || { why+="$host: ${#lines[@]} workers, want 4; "; continue; }
    parents=""
    for line in "${lines[@]}"; do
      jlist "$line" cpus; got=$REPLY
      jlist "$line" parent_cpus; parent=$REPLY
      [ "$got" = "$parent" ] || why+="$host worker on CPUs $got, its task on $parent; "
      [ "$parent" != "$ALL" ] || why+="$host: a task on every CPU; "
      parents+="$parent "
    done
    [ "$(tr ' ' '\n' <<<"$parents" | sort -u | grep -c .)" -eq 2 ] || why+="$host: tasks on CPUs $parents; "
  done
  [ -n "$why" ] || [ "$(grep -c 'of rank SLURM_LOCALID=., which numabind bound)' "$W/nested.log")" -eq 8 ] ||
    why="not 8 workers' lines say they planned inside their task: $(head -c 600 "$W/nested.log")"
  verdict nested "${why%; }"
fi

# numabind report (issue 19) as a job script uses it: salloc's shell makes the job's log folder, runs a step
# whose ranks log in JSON to $W/NAME/JOBID/HOST.log (NUMABIND_LOG_FILE=.../%j/%h.log), then `numabind report
# --nodes 2`, which finds the files from the same value. A job that binds everything: exit 0, both hosts
# named; one whose policy cannot be placed (CPUs 6 and 7): exit 1, naming the ranks that ran unbound.
report_job() {
  local dir=$W/${1//\//-}
  NB_ENV=(NUMABIND_LOG_FORMAT=json "NUMABIND_LOG_FILE=$dir/%j/%h.log" NB="$build/numabind" D="$dir")
  launch "$1" 60 salloc -N2 -n4 sh -c \
    'mkdir -p "$D/$SLURM_JOB_ID" && srun "$R" --out "$D.ranks"; "$NB" report --nodes 2; echo "report exit $?"'
}
report_job report/bound
rc=$? out=$W/report-bound.out
if [ $rc -ne 0 ]; then fail report/bound "$(launch_failed $rc report/bound)"
else
  why=$(ranks_why "$W/report-bound.ranks" "1 0")
  for want in "report exit 0" "host $HA: 2 ranks" "host $HB: 2 ranks" "every rank bound as planned: 2 hosts"; do
    grep -qF "$want" "$out" || why+="${why:+; }no '$want' in: $(tail -c 600 "$out" | tr '\n' ' ')"
  done
  verdict report/bound "$why"
fi
NB_POLICY='cpus:7|6'
report_job report/unbound
rc=$? out=$W/report-unbound.out
if [ $rc -ne 0 ]; then fail report/unbound "$(launch_failed $rc report/unbound)"
else
  why=""
  for want in "report exit 1" "ran unbound: rank 0 (SLURM_LOCALID)" "ran unbound: rank 1 (SLURM_LOCALID)" \
              "NOT as planned: 2 hosts, 4 ranks"; do
    grep -qF "$want" "$out" || why+="${why:+; }no '$want' in: $(tail -c 600 "$out" | tr '\n' ' ')"
  done
  verdict report/unbound "$why"
fi
NB_POLICY='cpus:1|0' NB_ENV=()

# A job script that launches four times, one after the other, into one log per host (issue 26): two srun
# steps (their tasks bind themselves: launch slurm:JOB.STEP/...) and two Open MPI mpirun (mpirun and its
# daemons bind the ranks). Each launch is judged on its own: exit 0, four launches of 2 ranks on each host.
# Then a job whose second step cannot be placed (its own NUMABIND_POLICY, CPUs 6 and 7): exit 1, naming
# the unbound ranks and their launch, slurm:JOB.1; the first step alone (--launch slurm:JOB.0) exits 0.
NB_ENV=(NUMABIND_LOG_FORMAT=json "NUMABIND_LOG_FILE=$W/report-launches/%j/%h.log" NB="$build/numabind"
        D="$W/report-launches")
launch report/launches 120 salloc -N2 -n4 sh -c \
  'mkdir -p "$D/$SLURM_JOB_ID" && srun "$R" --out "$D.ranks" && srun "$R" --out "$D.ranks" &&
   mpirun.openmpi -np 4 "$R" --out "$D.ranks" && mpirun.openmpi -np 4 "$R" --out "$D.ranks"
   "$NB" report --nodes 2; echo "report exit $?"'
rc=$? out=$W/report-launches.out
if [ $rc -ne 0 ]; then fail report/launches "$(launch_failed $rc report/launches)"
else
  why=""
  [ "$(grep -c '"cpus":"1"' "$W/report-launches.ranks")" -eq 8 ] ||
    why="not 8 ranks on CPU 1 of 16: $(head -c 400 "$W/report-launches.ranks")"
  for want in "report exit 0" "host $HA: 8 ranks in 4 launches" "host $HB: 8 ranks in 4 launches" \
              "every rank bound as planned: 2 hosts, 16 ranks"; do
    grep -qF "$want" "$out" || why+="${why:+; }no '$want' in: $(tail -c 900 "$out" | tr '\n' ' ')"
  done
  [ "$(grep -cE '^  launch slurm:[0-9]+\.[01]/[0-9]+@[0-9]+: 2 ranks' "$out")" -eq 4 ] ||
    why+="${why:+; }not both steps on both hosts: $(head -c 900 "$out" | tr '\n' ' ')"
  verdict report/launches "$why"
fi
NB_ENV=(NUMABIND_LOG_FORMAT=json "NUMABIND_LOG_FILE=$W/report-launch-unbound/%j/%h.log" NB="$build/numabind"
        D="$W/report-launch-unbound")
launch report/launch-unbound 90 salloc -N2 -n4 sh -c \
  'mkdir -p "$D/$SLURM_JOB_ID" && srun "$R" --out "$D.ranks" &&
   NUMABIND_POLICY="cpus:7|6" srun "$R" --out "$D.ranks"
   "$NB" report --nodes 2; echo "report exit $?"
   "$NB" report --nodes 2 --launch "slurm:$SLURM_JOB_ID.0" >/dev/null; echo "step 0 exit $?"'
rc=$? out=$W/report-launch-unbound.out
if [ $rc -ne 0 ]; then fail report/launch-unbound "$(launch_failed $rc report/launch-unbound)"
else
  why=""
  for want in "report exit 1" "step 0 exit 0" "ran unbound: rank 0 (SLURM_LOCALID)" \
              "ran unbound: rank 1 (SLURM_LOCALID)" "NOT as planned: 2 hosts, 8 ranks"; do
    grep -qF "$want" "$out" || why+="${why:+; }no '$want' in: $(tail -c 900 "$out" | tr '\n' ' ')"
  done
  # Each host's unbound ranks come under the second step's launch heading, right after it.
  [ "$(grep -A3 -E '^  launch slurm:[0-9]+\.1/' "$out" | grep -c 'ran unbound: rank')" -eq 4 ] ||
    why+="${why:+; }the unbound ranks are not under launch slurm:JOB.1: $(head -c 900 "$out" | tr '\n' ' ')"
  verdict report/launch-unbound "$why"
fi
NB_ENV=()

# No policy: the library is preloaded everywhere and binds nothing.
NB_POLICY=""
launch no-policy 60 srun -N2 -n4 "$REPORT" --out "$W/no-policy.ranks"
rc=$?
if [ $rc -ne 0 ]; then fail no-policy "$(launch_failed $rc no-policy)"
else
  why=$(ranks_why "$W/no-policy.ranks" "$ALL $ALL")
  grep -q 'bound' "$W/no-policy.log" 2>/dev/null && why+="${why:+; }the log says: $(head -n 1 "$W/no-policy.log")"
  verdict no-policy "$why"
fi
NB_POLICY='cpus:1|0'

# A policy that cannot be applied (CPUs this machine does not have), at the default log level: every rank
# runs, unbound, and says why in one line. In strict mode no rank runs: each stops before main with status
# 127 (srun returns the tasks' highest status), again with one line each.
NB_POLICY='cpus:7|6' NB_LOG=""
launch unbound 60 srun -N2 -n4 "$REPORT" --out "$W/unbound.ranks"
rc=$?
if [ $rc -ne 0 ]; then fail unbound "$(launch_failed $rc unbound)"
else
  why=$(ranks_why "$W/unbound.ranks" "$ALL $ALL")
  n=$(grep -c 'runs unbound' "$W/unbound.log" 2>/dev/null)
  [ "${n:-0}" -eq 4 ] || why+="${why:+; }${n:-0} 'runs unbound' lines in the log for 4 ranks"
  verdict unbound "$why"
fi
NB_ENV=(NUMABIND_STRICT=1)
launch strict 60 srun -N2 -n4 "$REPORT" --out "$W/strict.ranks"
rc=$?
why=""
[ $rc -eq 127 ] || why="srun exited $rc, want 127: $(tail -c 300 "$W/strict.out" | tr '\n' ' ')"
[ -e "$W/strict.ranks" ] && why+="${why:+; }$(wc -l < "$W/strict.ranks") ranks ran"
n=$(grep -c 'not started' "$W/strict.log" 2>/dev/null)
[ "${n:-0}" -eq 4 ] \
  || why+="${why:+; }${n:-0} 'not started' lines in the log for 4 ranks: $(head -n 1 "$W/strict.log" 2>/dev/null)"
verdict strict "$why"
NB_POLICY='cpus:1|0' NB_LOG=info NB_ENV=()

# Slurm's own task binding (task/affinity): the control shows that Slurm binds rank r to CPU r without the
# library; with it, the policy replaces Slurm's binding.
if ! cluster_restart_slurm task/affinity; then
  fail affinity/control "Slurm did not restart with task/affinity: $CL_WHY"
  fail affinity/srun "Slurm did not restart with task/affinity: $CL_WHY"
  fail affinity/cpu-bind "Slurm did not restart with task/affinity: $CL_WHY"
else
  on "$HA" env R="$REPORT" W="$W" timeout -k 5 60 srun -N2 -n4 "$REPORT" --out "$W/affinity-control.ranks" \
    </dev/null >"$W/affinity-control.out" 2>&1 &
  LAUNCH_PID=$!
  wait $LAUNCH_PID
  rc=$?
  if [ $rc -ne 0 ]; then fail affinity/control "$(launch_failed $rc affinity/control)"
  else verdict affinity/control "$(ranks_why "$W/affinity-control.ranks" "0 1")"; fi
  launch affinity/srun 60 srun -N2 -n4 "$REPORT" --out "$W/affinity-srun.ranks"
  LOG_SAYS="replaced Slurm's binding" case_ranks affinity/srun $? "$W/affinity-srun.ranks" "1 0"
  # A binding the user asked Slurm for (--cpu-bind) is replaced too, and named.
  launch affinity/cpu-bind 60 srun -N2 -n4 --cpu-bind=map_cpu:0,1 "$REPORT" --out "$W/affinity-cpu-bind.ranks"
  LOG_SAYS="replaced Slurm's binding" case_ranks affinity/cpu-bind $? "$W/affinity-cpu-bind.ranks" "1 0"
fi

# Site defaults (issue 19, docs/site.md): the site file on both hosts sets NUMABIND_POLICY=auto, and the
# library is in every process of both hosts through /etc/ld.so.preload, as docs/package.md has an
# administrator do: no job's environment holds LD_PRELOAD or any NUMABIND_* variable. The daemons start
# again in mount namespaces whose /etc has the two files over the machine's (cluster.sh's CL_SITE_ETC). auto
# gives local rank 0 CPU 0 and rank 1 CPU 1 (one core each); unbound ranks would be on both.
CL_SITE_ETC=$CL_DIR/site-etc
mkdir -p "$CL_SITE_ETC"
echo "$LIB" > "$CL_SITE_ETC/ld.so.preload"
printf '# numabind site defaults for the cluster suite\nNUMABIND_POLICY=auto\nNUMABIND_LOG=info\nNUMABIND_LOG_FILE=%s\nNUMABIND_SHARED=%s\n' \
  "$W/site.log" "$CL_DIR/shm" > "$CL_SITE_ETC/numabind.conf"
# launch_site NAME SECONDS CMD...: launch's run with nothing of numabind's in the environment; the log of
# every process goes to $W/site.log (the site file's), moved to NAME's log after.
launch_site() {
  local name=${1//\//-} secs=$2; shift 2
  rm -f "$W/$name".* "$W/site.log"
  on "$HA" env R="$REPORT" W="$W" TMPDIR="$CL_DIR/tmp" timeout -k 5 "$secs" "$@" </dev/null >"$W/$name.out" 2>&1 &
  LAUNCH_PID=$!
  wait $LAUNCH_PID
  local rc=$?
  [ ! -e "$W/site.log" ] || mv "$W/site.log" "$W/$name.log"
  return $rc
}
if ! cluster_restart_all task/none; then
  for s in site/srun site/sbatch site/ompi-ssh; do fail "$s" "the daemons did not start again: $CL_WHY"; done
else
  # Each rank reports LD_PRELOAD and NUMABIND_POLICY from its environment: both unset.
  ENV_ARGS=(--env LD_PRELOAD --env NUMABIND_POLICY)
  site_env_why() {
    local n
    n=$(grep -c -F '"env":{"LD_PRELOAD":null,"NUMABIND_POLICY":null}' "$1" 2>/dev/null)
    [ "${n:-0}" -eq 4 ] || echo "; ${n:-0} of 4 ranks without LD_PRELOAD and NUMABIND_POLICY: $(head -n 1 "$1")"
  }
  launch_site site/srun 60 srun -N2 -n4 "$REPORT" --out "$W/site-srun.ranks" "${ENV_ARGS[@]}"
  rc=$?
  why=$(site_env_why "$W/site-srun.ranks")
  if [ $rc -ne 0 ] || [ -z "$why" ]; then case_ranks site/srun $rc "$W/site-srun.ranks" "0 1"
  else fail site/srun "${why#; }"; fi

  cat > "$W/site-batch.sh" <<'EOF'
#!/bin/bash
"$R" --out "$W/site-sbatch.script"
srun "$R" --out "$W/site-sbatch.ranks" --env LD_PRELOAD --env NUMABIND_POLICY
EOF
  chmod +x "$W/site-batch.sh"
  launch_site site/sbatch 90 sbatch --wait -N2 -n4 -o "$W/site-sbatch.job" "$W/site-batch.sh"
  rc=$?
  if [ $rc -ne 0 ]; then fail site/sbatch "$(launch_failed $rc site/sbatch) job: $(tail -c 300 "$W/site-sbatch.job" 2>/dev/null)"
  else
    why=$(ranks_why "$W/site-sbatch.ranks" "0 1")$(outer_why "$W/site-sbatch.script" "the batch script")
    why+=$(site_env_why "$W/site-sbatch.ranks")
    why=${why#; }
    verdict site/sbatch "${why:-$(log_why site/sbatch 4)}"
  fi

  # Open MPI over ssh: mpirun, the remote orted (started by sshd) and the ranks all have the library from
  # /etc/ld.so.preload; nothing is passed with -x.
  launch_site site/ompi-ssh 60 mpirun.openmpi --host "$HA:2,$HB:2" -np 4 "$REPORT" --out "$W/site-ompi-ssh.ranks" \
    "${ENV_ARGS[@]}"
  rc=$?
  why=$(site_env_why "$W/site-ompi-ssh.ranks")
  if [ $rc -ne 0 ] || [ -z "$why" ]; then case_ranks site/ompi-ssh $rc "$W/site-ompi-ssh.ranks" "0 1" "$ALL $ALL"
  else fail site/ompi-ssh "${why#; }"; fi
fi
exit 0
