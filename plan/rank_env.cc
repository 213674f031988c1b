// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Compiled into the shim and run between fork/vfork and exec: every function here is child-safe (plain
// arithmetic on the caller's memory and the prepared basis; no allocation, locks, libc or system calls).

#include "plan/rank_env.h"

#include "base/text.h"
#include "config/grammar.h"
#include "config/visible_devices.h"

namespace numabind::plan {
namespace {

/// The longest ring of SMT siblings walked (POWER has 8 threads per core); a longer one is malformed.
constexpr int kMaxSiblings = 64;
/// How much of a user's value a note quotes.
constexpr size_t kQuoted = 40;
/// The most indexes of a visibility list looked at (a node has at most a few dozen devices).
constexpr uint32_t kMaxListed = 64;

// Child-safe: bit c of a CPU set.
bool Has(const uint64_t* words, uint32_t nwords, uint32_t c) {
  return c / 64 < nwords && ((words[c / 64] >> (c % 64)) & 1) != 0;
}

// Builds entries into the caller's buffer, each whole or not at all. Child-safe: writes only there.
struct Builder {
  char* buf;
  size_t cap;
  size_t at;    // bytes of the entries that fitted
  size_t need;  // bytes of every entry
  size_t len;   // the current entry's length so far
  RankEnv* out;

  // Child-safe: one character of the current entry.
  void Put(char c) {
    if (at + len < cap) buf[at + len] = c;
    ++len;
  }
  // Child-safe.
  void Str(const char* s) {
    while (*s != '\0') Put(*s++);
  }
  // Child-safe: decimal digits.
  void Num(uint64_t v) {
    char d[base::kDecimalMax];
    base::FormatDecimal(v, d);
    Str(d);
  }
  // Child-safe: ends the current entry; keeps it when it fitted, else says so in the note.
  void End(const char* name);
  // Child-safe: appends to the note, parts separated by "; ".
  void Note(const char* a, const char* b = "", const char* c = "", const char* d = "", const char* e = "");
};

void Builder::Note(const char* a, const char* b, const char* c, const char* d, const char* e) {
  size_t n = 0;
  while (out->note[n] != '\0') ++n;
  const char* parts[] = {n > 0 ? "; " : "", a, b, c, d, e};
  for (const char* p : parts) {
    for (size_t q = 0; p[q] != '\0' && n + 1 < sizeof(out->note); ++q) out->note[n++] = p[q];
  }
  out->note[n] = '\0';
}

void Builder::End(const char* name) {
  Put('\0');
  need += len;
  if (at + len <= cap && out->count < kRankEnvEntries) {
    out->entries[out->count++] = buf + at;
    at += len;
  } else if (cap > 0) {
    char number[base::kDecimalMax];
    base::FormatDecimal(len, number);
    Note(name, " needs ", number, " bytes, more than numabind exports: not set");
  }
  len = 0;
}

// Child-safe: a user's value for a note, cut to kQuoted characters (into `quoted`, kQuoted + 4 bytes).
const char* Quote(const char* v, char* quoted) {
  size_t n = 0;
  for (; v[n] != '\0' && n < kQuoted; ++n) quoted[n] = v[n] >= ' ' && v[n] <= '~' ? v[n] : '?';
  if (v[n] != '\0') quoted[n++] = '.', quoted[n++] = '.', quoted[n++] = '.';
  quoted[n] = '\0';
  return quoted;
}

// Whether CPU c is the lowest of its core's CPUs in the rank's set. Child-safe.
bool Leads(const PlanBasis& basis, const uint64_t* cpus, uint32_t c) {
  uint32_t s = basis.cpu_sibling[c];
  for (int i = 0; i < kMaxSiblings && s != c; ++i, s = basis.cpu_sibling[s]) {
    if (s < c && Has(cpus, basis.cpu_words, s)) return false;
  }
  return true;
}

// Calls f(cpu) for each CPU of the set, ascending, skipping empty words. Child-safe.
template <typename F>
void ForEachCpu(const uint64_t* words, uint32_t nwords, F f) {
  for (uint32_t w = 0; w < nwords; ++w) {
    for (uint64_t bits = words[w]; bits != 0; bits &= bits - 1)
      f(w * 64 + static_cast<uint32_t>(__builtin_ctzll(bits)));
  }
}

// OMP_NUM_THREADS, OMP_PLACES, OMP_PROC_BIND. Child-safe.
void AddOmp(const PlanBasis& basis, const RankPlan& plan, bool per_cpu, const config::EnvKept& env,
            Builder* b) {
  bool siblings = basis.cpu_sibling != nullptr && !per_cpu;
  auto leads = [&](uint32_t c) { return !siblings || Leads(basis, plan.cpus, c); };
  uint64_t places = 0;
  ForEachCpu(plan.cpus, basis.cpu_words, [&](uint32_t c) { places += leads(c) ? 1 : 0; });
  if (env.omp_num_threads == nullptr) {
    b->Str("OMP_NUM_THREADS=");
    b->Num(places);
    b->End("OMP_NUM_THREADS");
  }
  if (env.omp_places == nullptr) {
    b->Str("OMP_PLACES=");
    bool first = true;
    ForEachCpu(plan.cpus, basis.cpu_words, [&](uint32_t c) {
      if (!leads(c)) return;
      b->Str(first ? "{" : ",{");
      first = false;
      b->Num(c);
      // The ring ascends from c until it wraps to the core's lowest CPU; siblings below c are not in the
      // set (c leads).
      uint32_t s = siblings ? basis.cpu_sibling[c] : c;
      for (int i = 0; i < kMaxSiblings && s > c; ++i, s = basis.cpu_sibling[s]) {
        if (!Has(plan.cpus, basis.cpu_words, s)) continue;
        b->Put(',');
        b->Num(s);
      }
      b->Put('}');
    });
    b->End("OMP_PLACES");
  }
  if (env.omp_proc_bind == nullptr) {
    b->Str("OMP_PROC_BIND=close");
    b->End("OMP_PROC_BIND");
  }
}

// The devices the visibility value `v` makes visible, by index (config/visible_devices.h: up to its first
// invalid entry, and up to a repeated index), into listed[0..*n); false when it names devices by UUID.
// Child-safe.
bool Listed(const char* v, uint32_t (&listed)[kMaxListed], uint32_t* n) {
  if (!config::ParseVisibleDevices(v, listed, kMaxListed, n)) return false;
  for (uint32_t i = 1; i < *n; ++i) {
    for (uint32_t j = 0; j < i; ++j) {
      if (listed[j] == listed[i]) {
        *n = i;
        return true;
      }
    }
  }
  return true;
}

// Whether `index` is among listed[0..n). Child-safe.
bool ListHas(const uint32_t* listed, uint32_t n, uint32_t index) {
  for (uint32_t i = 0; i < n; ++i) {
    if (listed[i] == index) return true;
  }
  return false;
}

// CUDA_VISIBLE_DEVICES or ROCR_VISIBLE_DEVICES. Child-safe.
void AddGpu(const PlanBasis& basis, const RankPlan& plan, const config::EnvKept& env, Builder* b) {
  char quoted[kQuoted + 4];
  if (plan.device == nullptr || plan.device[0] == '\0') return b->Note("gpu: the rank has no device");
  if (plan.device_vendor == 0 || plan.device_ordinal < 0)
    return b->Note("gpu: device ", plan.device,
                   " is not an accelerator of the topology: no CUDA or ROCm index");
  const char* var = plan.device_vendor == kPciNvidia ? config::kEnvNames.cuda_visible_devices
                    : plan.device_vendor == kPciAmd  ? config::kEnvNames.rocr_visible_devices
                                                     : nullptr;
  if (var == nullptr) return b->Note("gpu: device ", plan.device, " is neither NVIDIA's nor AMD's");
  uint32_t ordinal = static_cast<uint32_t>(plan.device_ordinal);
  config::VisibleVars vis = config::VisibleVarsOf(env);
  const char* hip = plan.device_vendor == kPciAmd ? vis.hip : nullptr;
  if (hip != nullptr) return b->Note("gpu: HIP_VISIBLE_DEVICES=", Quote(hip, quoted), " is set: kept");
  // auto with fewer ranks than devices: a block of slots, all of the first's vendor with known ordinals.
  uint32_t last = plan.device_slot + (plan.device_count > 1 ? plan.device_count : 1);
  if (last > basis.slot_count) last = plan.device_slot + 1;
  for (uint32_t t = plan.device_slot + 1; t < last; ++t)
    if (basis.slots[t].device_vendor != plan.device_vendor || basis.slots[t].device_ordinal < 0)
      return b->Note("gpu: the rank's devices are not all ", var == nullptr ? "" : var, " devices");
  const char* v = plan.device_vendor == kPciNvidia ? vis.cuda : vis.rocr;
  if (v != nullptr) {
    uint32_t listed[kMaxListed], n = 0;
    const char* id = nullptr;
    uint32_t id_len = 0;
    bool indexes = Listed(v, listed, &n);
    if ((indexes && n == 1) || config::ParseDeviceUuid(v, &id, &id_len))
      return b->Note("gpu: ", var, "=", Quote(v, quoted), " names one device already: kept");
    for (uint32_t t = plan.device_slot; t < last; ++t) {
      uint32_t index = t == plan.device_slot ? ordinal : static_cast<uint32_t>(basis.slots[t].device_ordinal);
      if (!indexes || !ListHas(listed, n, index))
        return b->Note("gpu: ", var, "=", Quote(v, quoted), " does not list the device: kept");
    }
  }
  b->Str(var);
  b->Put('=');
  b->Num(ordinal);
  for (uint32_t t = plan.device_slot + 1; t < last; ++t) {
    b->Put(',');
    b->Num(static_cast<uint32_t>(basis.slots[t].device_ordinal));
  }
  b->End(var);
}

// NCCL_IB_HCA and UCX_NET_DEVICES. Child-safe.
void AddNic(const RankPlan& plan, const config::EnvKept& env, Builder* b) {
  if (plan.nics == nullptr || plan.nics[0] == '\0') return b->Note("nic: no network device near the rank");
  if (env.nccl_ib_hca == nullptr) {
    b->Str("NCCL_IB_HCA==");  // '=' first: exact names, or mlx5_1 would also pick mlx5_10...
    b->Str(plan.nics);
    b->End("NCCL_IB_HCA");
  }
  if (env.ucx_net_devices == nullptr) {
    b->Str("UCX_NET_DEVICES=");
    b->Str(plan.nics);
    b->End("UCX_NET_DEVICES");
  }
}

}  // namespace

size_t BuildRankEnv(const PlanBasis& basis, const RankPlan& plan, uint8_t exports, const char* const* env,
                    char* buf, size_t cap, RankEnv* out) {
  config::EnvFacts facts;
  config::ScanEnvFacts(env, &facts);
  return BuildRankEnv(basis, plan, exports, facts.kept, buf, cap, out);
}

// Child-safe: writes only into buf and *out.
size_t BuildRankEnv(const PlanBasis& basis, const RankPlan& plan, uint8_t exports, const config::EnvKept& env,
                    char* buf, size_t cap, RankEnv* out) {
  out->count = 0;
  out->note[0] = '\0';
  Builder b{buf, cap, 0, 0, 0, out};
  if ((exports & config::kExportOmp) != 0)
    AddOmp(basis, plan, (exports & config::kExportOmpCpus) != 0, env, &b);
  if ((exports & config::kExportGpu) != 0) AddGpu(basis, plan, env, &b);
  if ((exports & config::kExportNic) != 0) AddNic(plan, env, &b);
  return b.need;
}

// Child-safe: compares names.
bool RankEnvReplaces(const RankEnv& env, const char* old) {
  for (int i = 0; i < env.count; ++i) {
    const char* a = env.entries[i];
    const char* o = old;
    while (*a != '=' && *a == *o) ++a, ++o;
    if (*a == '=' && *o == '=') return true;
  }
  return false;
}

}  // namespace numabind::plan
