// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0

#include "config/vars.h"

#include "config/config.h"

namespace numabind::config {

const char kDefaultMatch[] = "*-c from multiprocessing.spawn import spawn_main*--multiprocessing-fork*";

const VarInfo kVars[] = {
    {"NUMABIND_POLICY", "node|socket|exclusive|core-complex|auto|cpus:LIST|LIST...|nodes:LIST|LIST...",
     nullptr, "numabind does nothing",
     "How each local rank is placed; numabind acts only when this is set. node: every CPU of the NUMA node "
     "nearest the rank's device; socket: every CPU of the package holding that node; exclusive: that node's "
     "physical cores shared out among its ranks, SMT siblings kept together; core-complex: one last-level "
     "cache of that node per rank. Without devices, ranks are spread over the NUMA nodes in contiguous "
     "blocks. auto: no configuration: fewer ranks than devices drive blocks of devices with the CPUs of "
     "the nodes they sit near; otherwise each rank its device's node, equal shares of the cores first, whole "
     "last-level caches where they keep shares equal; without devices every node with CPUs in proportion "
     "to its cores (docs/auto.md). cpus: and nodes: are explicit per-rank maps: entries separated by |, each "
     "a "
     "list such as "
     "0-3,8 (CPUs up to 65535, nodes up to 1023), *N repeats an entry (4096 entries in all), ranks wrap "
     "around.",
     ReadPolicy},
    {"NUMABIND_MEMORY", "local|preferred|bind|interleave", "local", nullptr,
     "Memory policy over the rank's NUMA nodes: local keeps the kernel's first touch, preferred prefers "
     "them, bind allows only them, interleave spreads pages across them.",
     ReadMemory},
    {"NUMABIND_DEVICES", "auto|none|BUSID,BUSID...", "auto", nullptr,
     "The accelerator each local rank drives (rank r uses device r mod count), whose NUMA node the policy "
     "starts from. auto: accelerators found by PCI vendor and class (a VGA-class device only on evidence "
     "that "
     "it computes: docs/auto.md), ordered by bus id, the i-th of a "
     "numeric CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES or HIP_VISIBLE_DEVICES for local rank i when set; "
     "none: no devices; or PCI bus ids such as 0000:34:00.0.",
     ReadDevices},
    {"NUMABIND_NRANKS", "N", nullptr, "the launcher's local size",
     "How many local ranks run on this machine; by default the launcher's local-size variable that goes "
     "with the rank's variable (LOCAL_WORLD_SIZE, OMPI_COMM_WORLD_LOCAL_SIZE, MPI_LOCALNRANKS, "
     "PMI_LOCAL_SIZE, PALS_LOCAL_SIZE, MV2_COMM_WORLD_LOCAL_SIZE, JSM_NAMESPACE_LOCAL_SIZE; for "
     "SLURM_LOCALID this node's entry, by SLURM_NODEID, of SLURM_STEP_TASKS_PER_NODE or else "
     "SLURM_TASKS_PER_NODE in Slurm's compressed form such as 2(x3),1).",
     ReadNranks},
    {"NUMABIND_RANK_VAR", "NAME", nullptr, "the built-in list",
     "The variable that carries a spawned program's local rank; by default the first of LOCAL_RANK, "
     "OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, PMI_LOCAL_RANK, PALS_LOCAL_RANKID, "
     "MV2_COMM_WORLD_LOCAL_RANK, JSM_NAMESPACE_LOCAL_RANK, FLUX_TASK_LOCAL_ID, MPT_LRANK and SLURM_LOCALID "
     "(only in a Slurm step task, with SLURM_STEP_ID) that the new program's environment carries and the "
     "launcher's own did not. Set, it also makes a step's only task on a node bind itself (docs/slurm.md).",
     ReadRankVar},
    {"NUMABIND_MATCH", "GLOB", kDefaultMatch, nullptr,
     "Spawns whose command line (arguments joined with spaces) matches this fnmatch(3) glob, made by a "
     "process that is not itself a rank, take local ranks 0, 1, 2... in spawn order: for launchers whose "
     "workers get no rank variable. The default matches Python multiprocessing's spawn workers, not its "
     "resource tracker. Empty: matches nothing.",
     ReadMatch, true},
    {"NUMABIND_TOPOLOGY", "FILE|synthetic:DESC", nullptr, "the live machine",
     "Plan on an hwloc XML file or an hwloc synthetic description (synthetic:pack:2 numa:2 core:4 pu:2) "
     "instead of the live machine.",
     ReadTopology},
    {"NUMABIND_LOG", "off|warn|info|debug", "warn", nullptr,
     "warn: problems only; info: also one line per bound rank (pid, rank and where it came from, command, "
     "CPUs, nodes, memory policy, entry point); debug: also the spawning call stack.",
     ReadLog},
    {"NUMABIND_LOG_FORMAT", "text|json", "text", nullptr,
     "json: every log line is one JSON object of strict UTF-8 with time, host, pid and level; a bound "
     "rank's also has event, rank, nranks, rank_var, command, cpus, nodes, memory, device, entry and "
     "replaced (true when the rank started on other CPUs than its plan's, named by launcher_cpus); a "
     "problem's has message; a line cut to 2 KB ends with \"truncated\":true.",
     ReadLogFormat},
    {"NUMABIND_LOG_FILE", "PATH", nullptr, "standard error", "Append log lines to this file instead.",
     ReadLogFile},
    {"NUMABIND_STRICT", "0|1", "0", nullptr,
     "1: a rank that cannot be bound is not started (its exec or spawn fails with errno set; a rank binding "
     "itself at start-up exits with status 127 before main). 0: it runs unbound after a warning.",
     ReadStrict},
    {"NUMABIND_DISABLE", "0|1", "0", nullptr,
     "1 turns numabind off whatever else is set; nothing else is read.", ReadDisable},
    {"NUMABIND_SHARED", "DIR|off", "/dev/shm", nullptr,
     "Where processes of one user share the prepared plan basis, so that only the first process on a machine "
     "discovers the topology: one file per configuration and allowed CPU and node set under DIR/numabind-UID "
     "(owned by the user, mode 0600), replaced when the machine changes (CPU hotplug, reboot, a new "
     "numabind). "
     "off: every process prepares its own.",
     ReadShared},
    {"NUMABIND_BOUND", "VAR=VALUE", nullptr, "set by numabind only",
     "Added by numabind to the environment of every rank it binds: the rank variable it bound by, such as "
     "LOCAL_RANK=1, then, when it bound it, ' cpus=LIST by=PID' (the rank's CPUs and who bound them). A "
     "process whose own rank variable and value are the same does not bind itself again, so a rank's "
     "children and a taskset or numactl inside a rank keep their binding; a launcher inside a rank plans its "
     "ranks within that rank's CPUs.",
     ReadBound},
    {"NUMABIND_EXPORT", "none|omp,omp-cpus,gpu,nic", "none", nullptr,
     "What else a bound rank's environment gets, set only in the rank's exec (docs/exports.md). omp: "
     "OMP_NUM_THREADS, OMP_PLACES (one place per physical core of the rank's CPUs; omp-cpus: per CPU) and "
     "OMP_PROC_BIND=close, each unless already set; gpu: CUDA_VISIBLE_DEVICES or ROCR_VISIBLE_DEVICES "
     "narrowed to the rank's device (under auto with fewer ranks than devices, its block of devices); nic: "
     "NCCL_IB_HCA and UCX_NET_DEVICES naming the NICs near the rank, "
     "unless already set.",
     ReadExport},
    {"NUMABIND_GUARD", "0|1", "0", nullptr,
     "1: in a rank numabind bound, sched_setaffinity and pthread_setaffinity_np calls for the rank's own "
     "threads are narrowed to the rank's CPUs (no CPU in common: EINVAL), the first narrowing logged once "
     "with the caller's stack; other processes' calls pass through. Raw system calls and memory-policy "
     "calls are not guarded (docs/guard.md).",
     ReadGuard},
};

const int kVarCount = sizeof(kVars) / sizeof(kVars[0]);

const RankVar kRankVars[kRankVarCount] = {
    {"LOCAL_RANK", "LOCAL_WORLD_SIZE"},                            // torchrun, accelerate, ...
    {"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},  // Open MPI
    {"MPI_LOCALRANKID", "MPI_LOCALNRANKS"},                        // MPICH hydra, Intel MPI
    {"PMI_LOCAL_RANK", "PMI_LOCAL_SIZE"},                          // Cray PMI
    {"PALS_LOCAL_RANKID", "PALS_LOCAL_SIZE"},                      // HPE PALS
    {"MV2_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_SIZE"},    // MVAPICH2
    {"JSM_NAMESPACE_LOCAL_RANK", "JSM_NAMESPACE_LOCAL_SIZE"},      // IBM jsrun
    {"FLUX_TASK_LOCAL_ID", nullptr},                               // Flux
    {"MPT_LRANK", nullptr},                                        // HPE/SGI MPT
    {"SLURM_LOCALID", "SLURM_STEP_TASKS_PER_NODE"},                // Slurm: last, inherited stale
};

const char* const kPlannerVars[kPlannerVarCount] = {"CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
                                                    "HIP_VISIBLE_DEVICES"};

const VarInfo* FindVar(const char* name, size_t len) {
  for (int i = 0; i < kVarCount; ++i) {
    const char* v = kVars[i].name;
    size_t j = 0;
    while (j < len && v[j] != '\0' && v[j] == name[j]) ++j;
    if (j == len && v[j] == '\0') return &kVars[i];
  }
  return nullptr;
}

}  // namespace numabind::config
