// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind report`'s reading of log lines (cli/report_log.cc: ParseLogLine, AddLogLine, Judge), one line
// per input line. Beyond not crashing: every text read is valid UTF-8 (what report prints is then valid JSON
// and valid text); a rank, rank count and pid kept are decimal numbers within the library's limits
// (config/limits.h), so --json prints them as numbers; no more ranks than lines; the flags grow with the
// lines, not with the counts a line claims.

#include <string>

#include "cli/report.h"
#include "config/limits.h"
#include "fuzz/fuzz_util.h"

namespace {

bool ValidUtf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80                ? 1
               : c >= 0xc2 && c < 0xe0 ? 2
               : c >= 0xe0 && c < 0xf0 ? 3
               : c >= 0xf0 && c < 0xf5 ? 4
                                       : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return false;
    unsigned char c1 = n > 1 ? static_cast<unsigned char>(s[i + 1]) : 0;
    if ((c == 0xe0 && c1 < 0xa0) || (c == 0xed && c1 >= 0xa0) || (c == 0xf0 && c1 < 0x90) ||
        (c == 0xf4 && c1 >= 0x90))
      return false;
    i += n;
  }
  return true;
}

bool NumberUpTo(const std::string& s, unsigned long max) {
  if (s.empty()) return true;
  if (s.size() > 10 || s.find_first_not_of("0123456789") != std::string::npos) return false;
  return std::stoul(s) <= max;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  numabind::cli::ReportJob job;
  size_t accepted = 0;
  for (const std::string& line : numabind::fuzz::Lines(data, size)) {
    numabind::cli::LogFields fields;
    if (!numabind::cli::ParseLogLine(line, &fields)) continue;
    ++accepted;
    for (const std::string& key : fields.unknown)
      FUZZ_CHECK(ValidUtf8(key), "key \"%s\" is not UTF-8", key.c_str());
    for (const numabind::cli::LogValue& value : fields.values)
      FUZZ_CHECK(ValidUtf8(value.text), "value \"%s\" is not UTF-8", value.text.c_str());
    numabind::cli::AddLogLine(fields, &job);
  }
  // Every launch, or (odd sizes) the last of each host.
  numabind::cli::LaunchChoice choice;
  choice.last = size % 2 == 1;
  numabind::cli::Judge(&job, 3, choice);
  size_t ranks = 0, flags = job.flags.size();
  for (const numabind::cli::ReportHost& h : job.hosts) {
    FUZZ_CHECK(ValidUtf8(h.host), "host not UTF-8");
    ranks += h.ranks.size();
    flags += h.flags.size();
    for (const numabind::cli::ReportRank& r : h.ranks) {
      FUZZ_CHECK(NumberUpTo(r.rank, numabind::config::kMaxRanks - 1), "rank \"%s\"", r.rank.c_str());
      FUZZ_CHECK(NumberUpTo(r.nranks, numabind::config::kMaxRanks), "nranks \"%s\"", r.nranks.c_str());
      FUZZ_CHECK(NumberUpTo(r.pid, 1ul << 22), "pid \"%s\"", r.pid.c_str());
      FUZZ_CHECK(r.flags.size() <= 8, "%zu flags on one rank", r.flags.size());
      flags += r.flags.size();
    }
  }
  FUZZ_CHECK(ranks <= accepted && job.lines <= accepted, "%zu ranks, %zu lines of %zu", ranks, job.lines,
             accepted);
  FUZZ_CHECK(flags <= 10 * accepted + 2, "%zu flags for %zu lines", flags, accepted);
  return 0;
}
