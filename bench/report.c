// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The table on stdout and the JSON file.

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

typedef struct {
  double ratio;  ///< median of all num samples / median of all den samples; 0 when unknown
  double round_median, round_p10, round_p90;  ///< over the rounds' ratios of medians
  /// p10 / p10: the fast spawns, which other processes on a busy machine disturb least.
  double ratio_p10;
  const char* verdict;      ///< of the ratio of medians: "ok", "MISSED", "info", or why there is no figure
  const char* verdict_p10;  ///< of the ratio of p10s
} RatioResult;

static double QuantileOfSorted(const double* v, size_t n, double q) {
  if (n == 0) return 0;
  double pos = q * (double)(n - 1);
  size_t lo = (size_t)pos;
  if (lo + 1 >= n) return v[n - 1];
  return v[lo] + (v[lo + 1] - v[lo]) * (pos - (double)lo);
}

static const char* Verdict(const Variant* a, const Variant* b, const RatioSpec* spec, int m, double ratio) {
  if (!a->verified || !b->verified) return "UNVERIFIED";
  if (a->failures[m] || b->failures[m]) return "FAILURES";
  if (spec->target == 0) return "info";
  if (spec->at_least) return ratio > spec->target ? "ok" : "MISSED";
  return ratio <= spec->target ? "ok" : "MISSED";
}

static RatioResult ComputeRatio(const Results* r, const RatioSpec* spec, int m, int k) {
  RatioResult out = {0, 0, 0, 0, 0, "n/a", "n/a"};
  const Variant* a = FindVariant(r, spec->num);
  const Variant* b = FindVariant(r, spec->den);
  if (!a || !b) return out;
  Samples sa = a->samples[m][k], sb = b->samples[m][k];
  if (sa.n == 0 || sb.n == 0) return out;
  Summary x = Summarize(&sa), y = Summarize(&sb);
  out.ratio = x.median / y.median;
  out.ratio_p10 = x.p10 / y.p10;
  double* per = malloc((size_t)r->rounds * sizeof(double));
  size_t n = 0;
  for (int i = 0; i < r->rounds; i++)
    if (a->round_median[m][k][i] > 0 && b->round_median[m][k][i] > 0)
      per[n++] = a->round_median[m][k][i] / b->round_median[m][k][i];
  out.round_median = MedianOf(per, n);  // sorts per
  out.round_p10 = QuantileOfSorted(per, n, 0.10);
  out.round_p90 = QuantileOfSorted(per, n, 0.90);
  free(per);
  out.verdict = Verdict(a, b, spec, m, out.ratio);
  out.verdict_p10 = Verdict(a, b, spec, m, out.ratio_p10);
  return out;
}

static void PrintTarget(const RatioSpec* s, char* buf, size_t cap) {
  if (s->target == 0)
    snprintf(buf, cap, "-");
  else
    snprintf(buf, cap, "%s %.2f", s->at_least ? ">" : "<=", s->target);
}

void PrintReport(const Results* r) {
  const Machine* mc = &r->machine;
  printf("\nnumabind bench: %s, %ld CPUs (allowed %s), %s, %s, load %.2f at start, %.2f at end\n", mc->cpu,
         mc->ncpu, mc->allowed, mc->kernel, mc->libc, mc->load1, r->load1_end);
  printf(
      "%ld spawns of /bin/true per variant and method, one at a time in turn (shuffled) across all of them, "
      "in %d rounds "
      "of fresh spawners (+%d warm-up spawns each); %.0f s in all\n\n",
      r->spawns, r->rounds, r->warmup, r->seconds);
  if (r->shim_b[0]) printf("the -b variants preload %s\n\n", r->shim_b);
  printf(
      "per spawn, microseconds: wall = spawn until waitpid returns; cpu = launcher thread + child CPU "
      "time\n");
  printf("%-13s %-12s %8s %8s %8s %8s %8s %9s %5s %6s %8s %8s %8s\n", "variant", "method", "wall", "p10",
         "p25", "p75", "p90", "1st spawn", "fail", "check", "cpu", "p10", "p90");
  for (int i = 0; i < r->nvariants; i++) {
    Variant* v = &r->variants[i];
    for (int m = 0; m < kMethods; m++) {
      Summary s = Summarize(&v->samples[m][kWall]);
      Summary c = Summarize(&v->samples[m][kCpu]);
      Summary f = Summarize(&v->first[m]);
      printf("%-13s %-12s %8.1f %8.1f %8.1f %8.1f %8.1f %9.1f %5llu %6s %8.1f %8.1f %8.1f\n", v->name,
             kMethodName[m], s.median / 1e3, s.p10 / 1e3, s.p25 / 1e3, s.p75 / 1e3, s.p90 / 1e3,
             f.median / 1e3, (unsigned long long)v->failures[m], v->verified ? "ok" : "FAILED",
             c.median / 1e3, c.p10 / 1e3, c.p90 / 1e3);
    }
  }
  printf("\nvariants, and what the check before timing saw\n");
  for (int i = 0; i < r->nvariants; i++)
    printf("  %-13s %s\n  %-13s   %s\n", r->variants[i].name, r->variants[i].what, "", r->variants[i].note);

  printf("\nratios: of medians (rounds: median of each round's ratio [p10, p90 over rounds]) and of p10s\n");
  printf("  %-28s %-12s %11s %-25s %8s %8s %8s  %-8s %s\n", "", "method", "wall median", "  rounds",
         "wall p10", "cpu med", "cpu p10", "target", "wall median / wall p10");
  for (int i = 0; i < r->nratios; i++) {
    const RatioSpec* s = &r->ratios[i];
    if (!FindVariant(r, s->num) || !FindVariant(r, s->den)) continue;  // left out by BENCH_VARIANTS
    char name[40], target[16];
    snprintf(name, sizeof(name), "%s / %s", s->num, s->den);
    PrintTarget(s, target, sizeof(target));
    for (int m = 0; m < kMethods; m++) {
      RatioResult w = ComputeRatio(r, s, m, kWall), c = ComputeRatio(r, s, m, kCpu);
      printf("  %-28s %-12s %11.3f   %5.3f [%5.3f, %5.3f]    %8.3f %8.3f %8.3f  %-8s %s / %s\n", name,
             kMethodName[m], w.ratio, w.round_median, w.round_p10, w.round_p90, w.ratio_p10, c.ratio,
             c.ratio_p10, target, w.verdict, w.verdict_p10);
    }
  }

  printf("\nplanning and discovery, milliseconds                       median      min      max  status\n");
  for (int i = 0; i < kPlanCount; i++) {
    Timing* t = (Timing*)&r->plans[i];
    Summary s = Summarize(&t->wall);
    printf("  %-56s %8.1f %8.1f %8.1f  exit %d%s%s\n", t->what, s.median / 1e6, s.min / 1e6, s.max / 1e6,
           t->rc, t->note[0] ? ": " : "", t->note);
  }
  printf("  (topology %s; wall time of the whole command)\n", r->topology);
  printf("  what a launcher spends preparing once (the shim runs this helper), wall time of the command:\n");
  for (int i = 0; i < kPrepareCount; i++) {
    Timing* t = (Timing*)&r->prepares[i];
    Summary s = Summarize(&t->wall);
    printf("  %-56s %8.1f %8.1f %8.1f  exit %d%s%s\n", t->what, s.median / 1e6, s.min / 1e6, s.max / 1e6,
           t->rc, t->note[0] ? ": " : "", t->note);
  }
}

static void JsonSummary(FILE* f, Samples* s, double scale) {
  Summary x = Summarize(s);
  fprintf(f,
          "{\"n\":%zu,\"median\":%.3f,\"p10\":%.3f,\"p25\":%.3f,\"p75\":%.3f,\"p90\":%.3f,\"mean\":%.3f,"
          "\"min\":%.3f,\"max\":%.3f}",
          x.n, x.median / scale, x.p10 / scale, x.p25 / scale, x.p75 / scale, x.p90 / scale, x.mean / scale,
          x.min / scale, x.max / scale);
}

static void JsonTiming(FILE* f, Timing* t) {
  fprintf(f, "{\"what\":");
  JsonString(f, t->what);
  fprintf(f, ",\"exit\":%d,\"note\":", t->rc);
  JsonString(f, t->note);
  fprintf(f, ",\"ms\":");
  JsonSummary(f, &t->wall, 1e6);
  fprintf(f, "}");
}

int WriteJson(const Results* r, const char* path) {
  FILE* f = fopen(path, "we");
  if (!f) return 0;
  const Machine* mc = &r->machine;
  fprintf(f, "{\n\"machine\":{\"cpu\":");
  JsonString(f, mc->cpu);
  fprintf(f, ",\"nproc\":%ld,\"allowed\":", mc->ncpu);
  JsonString(f, mc->allowed);
  fprintf(f, ",\"kernel\":");
  JsonString(f, mc->kernel);
  fprintf(f, ",\"libc\":");
  JsonString(f, mc->libc);
  fprintf(f, ",\"load1_at_start\":%.2f,\"load1_at_end\":%.2f},\n", mc->load1, r->load1_end);
  fprintf(f, "\"params\":{\"spawns\":%ld,\"rounds\":%d,\"warmup\":%d,\"program\":\"/bin/true\",\"cpus\":",
          r->spawns, r->rounds, r->warmup);
  JsonString(f, r->cpumap);
  fprintf(f, ",\"shim_b\":");
  JsonString(f, r->shim_b);
  fprintf(f,
          ",\"seconds\":%.1f},\n\"unit\":\"microseconds per spawn; wall: spawn until waitpid returns; cpu: "
          "launcher thread plus child CPU time\",\n",
          r->seconds);
  fprintf(f, "\"variants\":[\n");
  for (int i = 0; i < r->nvariants; i++) {
    Variant* v = &r->variants[i];
    fprintf(f, " {\"name\":");
    JsonString(f, v->name);
    fprintf(f, ",\"what\":");
    JsonString(f, v->what);
    fprintf(f, ",\"policy\":");
    JsonString(f, v->policy);
    fprintf(f, ",\"verified\":%s,\"check\":", v->verified ? "true" : "false");
    JsonString(f, v->note);
    for (int m = 0; m < kMethods; m++) {
      fprintf(f, ",\n  \"%s\":{\"failures\":%llu,\"wall_us\":", kMethodKey[m],
              (unsigned long long)v->failures[m]);
      JsonSummary(f, &v->samples[m][kWall], 1e3);
      fprintf(f, ",\"cpu_us\":");
      JsonSummary(f, &v->samples[m][kCpu], 1e3);
      fprintf(f, ",\"first_spawn_us\":");
      JsonSummary(f, &v->first[m], 1e3);
      fprintf(f, "}");
    }
    fprintf(f, "}%s\n", i + 1 < r->nvariants ? "," : "");
  }
  fprintf(f, "],\n\"ratios\":[\n");
  const char* sep = "";
  for (int i = 0; i < r->nratios; i++) {
    const RatioSpec* s = &r->ratios[i];
    if (!FindVariant(r, s->num) || !FindVariant(r, s->den)) continue;
    for (int m = 0; m < kMethods; m++)
      for (int k = 0; k < kMetrics; k++) {
        RatioResult x = ComputeRatio(r, s, m, k);
        const char* kind = s->target == 0 ? "none" : s->at_least ? "greater" : "at_most";
        fprintf(f,
                "%s {\"num\":\"%s\",\"den\":\"%s\",\"method\":\"%s\",\"metric\":\"%s\",\"ratio\":%.4f,"
                "\"round_median\":%.4f,\"round_p10\":%.4f,\"round_p90\":%.4f,\"ratio_p10\":%.4f,"
                "\"target\":%.2f,\"target_is\":\"%s\",\"result\":\"%s\",\"result_p10\":\"%s\"}",
                sep, s->num, s->den, kMethodKey[m], kMetricKey[k], x.ratio, x.round_median, x.round_p10,
                x.round_p90, x.ratio_p10, s->target, kind, x.verdict, x.verdict_p10);
        sep = ",\n";
      }
  }
  fprintf(f, "\n],\n\"planning\":{\"topology\":");
  JsonString(f, r->topology);
  fprintf(f, ",\"plan\":[");
  for (int i = 0; i < kPlanCount; i++) {
    JsonTiming(f, (Timing*)&r->plans[i]);
    fprintf(f, "%s", i + 1 < kPlanCount ? "," : "");
  }
  fprintf(f, "],\n\"prepare\":[");
  for (int i = 0; i < kPrepareCount; i++) {
    JsonTiming(f, (Timing*)&r->prepares[i]);
    fprintf(f, "%s", i + 1 < kPrepareCount ? "," : "");
  }
  fprintf(f, "]}\n}\n");
  return fclose(f) == 0;
}
