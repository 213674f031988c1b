# shellcheck shell=bash
# What the cluster suite (cluster.sh) and the qemu guest's one-node Slurm (tests/vm/slurm.sh) share: a
# slurm.conf whose every file lives in one scratch folder, and a munged whose key and socket live there too.
# Sourced; defines functions only.

# wait_until SECONDS CMD...: retries CMD every 0.2 s until it succeeds or the time is up.
wait_until() {
  local end=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do [ $SECONDS -lt $end ] || return 1; sleep 0.2; done
}

# slurm_conf_write DIR TASKPLUGIN CONTROLLER NODELINE...: DIR/slurm.conf for a test cluster run as root:
# state, spool, pid and log files in DIR (per node with %n), munge through DIR/munge/sock (munge_start),
# proctrack/linuxproc, TASKPLUGIN (task/none or task/affinity), select/cons_tres with CR_CPU.
# CONTROLLER is "host(address)"; each NODELINE a "NodeName=..." line.
slurm_conf_write() {
  local d=$1 task=$2 ctld=$3 line; shift 3
  {
    echo "ClusterName=nbc"
    echo "SlurmctldHost=$ctld"
    echo "SlurmUser=root"
    echo "SlurmdUser=root"
    echo "AuthType=auth/munge"
    echo "AuthInfo=socket=$d/munge/sock"
    echo "CredType=cred/munge"
    echo "StateSaveLocation=$d/state"
    echo "SlurmdSpoolDir=$d/spool-%n"
    echo "SlurmctldPidFile=$d/slurmctld.pid"
    echo "SlurmdPidFile=$d/slurmd-%n.pid"
    echo "SlurmctldLogFile=$d/slurmctld.log"
    echo "SlurmdLogFile=$d/slurmd-%n.log"
    echo "ProctrackType=proctrack/linuxproc"
    echo "TaskPlugin=$task"
    echo "SelectType=select/cons_tres"
    echo "SelectTypeParameters=CR_CPU"
    echo "SchedulerType=sched/builtin"
    echo "MpiDefault=none"
    echo "ReturnToService=2"
    echo "MinJobAge=5"
    echo "KillWait=2"
    echo "MailProg=/bin/true"
    echo "JobCompType=jobcomp/none"
    echo "AccountingStorageType=accounting_storage/none"
    echo "JobAcctGatherType=jobacct_gather/none"
    for line in "$@"; do echo "$line"; done
    echo "PartitionName=main Nodes=ALL Default=YES MaxTime=10 State=UP OverSubscribe=NO"
  } > "$d/slurm.conf" && mkdir -p "$d/state"
}

# munge_start DIR: a munged in the background with its key, socket (DIR/munge/sock), pid, log and seed in
# DIR/munge; MUNGE_PID is its PID. Returns 1 with MUNGE_WHY set when it does not start within 10 s.
MUNGE_PID="" MUNGE_WHY=""
munge_start() {
  local m=$1/munge
  MUNGE_PID="" MUNGE_WHY=""
  mkdir -p "$m" && chmod 700 "$m" || { MUNGE_WHY="cannot make $m"; return 1; }
  mungekey -c -k "$m/key" 2>"$m/mungekey.err" || { MUNGE_WHY="mungekey: $(cat "$m/mungekey.err")"; return 1; }
  munged -F -f --key-file="$m/key" --socket="$m/sock" --pid-file="$m/pid" --log-file="$m/log" \
    --seed-file="$m/seed" </dev/null >>"$m/log" 2>&1 &
  MUNGE_PID=$!
  wait_until 10 test -S "$m/sock" || { MUNGE_WHY="munged did not start: $(tail -n 2 "$m/log")"; return 1; }
}
