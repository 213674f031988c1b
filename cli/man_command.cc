// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// `numabind man 1|7`: the manual pages, in roff. numabind(1) is rendered from the command table
// (cli/commands.h) whose records `--help` and `help COMMAND` print, numabind(7) from the variable table
// (config/vars.def) that `numabind vars` and the README's table come from, and the rank variables from
// config::kRankVars: none of them can drift apart.
// The Makefile writes them to $(BUILD)/man at build time; they are installed from there.

#include <string>

#include "cli/cli.h"
#include "cli/commands.h"
#include "config/config.h"
#include "config/vars.h"

namespace numabind::cli {
namespace {

/// Text for roff: backslashes and minus signs escaped, a control character at the start of a line made
/// literal.
std::string Roff(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
    line_start = c == '\n';
  }
  return out;
}

std::string Bold(const std::string& text) { return "\\fB" + Roff(text) + "\\fR"; }

/// A help paragraph as the manual has it: its lines joined, broken where the reader's width decides.
std::string Joined(const char* paragraph) {
  std::string text = paragraph;
  for (char& c : text) c = c == '\n' ? ' ' : c;
  return text;
}

/// "numabind NAME SYNOPSIS".
std::string Usage(const Command& c) {
  std::string synopsis = Synopsis(c);
  return std::string("numabind ") + c.name + (synopsis.empty() ? "" : " ") + synopsis;
}

/// One command's subsection: its synopsis, its paragraphs (.PP), each option (.TP) and its exit status,
/// the texts `help NAME` prints.
std::string CommandSection(const Command& c) {
  std::string out = ".SS " + Roff(Usage(c)) + "\n";
  for (const char* const* p = c.help->about; *p != nullptr; ++p) out += ".PP\n" + Roff(Joined(*p)) + "\n";
  OptionList list = c.options != nullptr ? c.options() : OptionList{nullptr, 0};
  for (size_t i = 0; i < list.count; ++i) {
    const OptionSpec& o = list.specs[i];
    out += ".TP\n" + Bold(o.name) + (o.flag ? "" : " \\fI" + Roff(o.arg) + "\\fR") + "\n";
    out += Roff(OptionText(o)) + "\n";
  }
  return out + ".PP\n" + Roff("Exit status: " + Joined(c.help->exit_status)) + "\n";
}

std::string Header(int section, const char* title) {
  return std::string(".TH NUMABIND ") + std::to_string(section) + " \"\" \"numabind " + kVersion + "\" \"" +
         title + "\"\n";
}

void PrintPage1(FILE* out) {
  std::string page = Header(1, "User Commands");
  page +=
      ".SH NAME\nnumabind \\- start each rank of a parallel job on the CPUs and memory nearest its "
      "accelerator\n.SH SYNOPSIS\n.nf\n";
  // The command list's synopses, each a line.
  for (size_t i = 0; i < kCommandCount; ++i) {
    const Command& c = kCommands[i];
    if (c.listing != Listing::kInternal)
      page += Bold("numabind") + Roff(Usage(c).substr(sizeof("numabind") - 1)) + "\n";
  }
  page += Bold("numabind") + Roff(" --version") + "\n";
  page +=
      ".fi\n.SH DESCRIPTION\n"
      "numabind places the ranks of parallel jobs (mpirun, torchrun, a shell loop) on the CPUs and memory "
      "policy of the NUMA node nearest each rank's accelerator, or on a slice of a CPU machine. The work is "
      "done by the preloaded library libnumabind.so, which does nothing unless NUMABIND_POLICY is set; this "
      "command shows plans, shows where processes run, lists the processes it bound, runs a launcher with "
      "the library preloaded, and "
      "reports "
      "from a job's logs whether every rank ran where it should. The "
      "variables, the rules of which spawns are ranks and site-wide use are in \\fBnumabind\\fR(7).\n"
      ".SH COMMANDS\n";
  for (size_t i = 0; i < kCommandCount; ++i) {
    const Command& c = kCommands[i];
    if (c.listing == Listing::kManual) page += CommandSection(c);
  }
  page +=
      ".SH ENVIRONMENT\n"
      "The options of \\fBrun\\fR and \\fBplan\\fR default to the NUMABIND_* variables, listed in "
      "\\fBnumabind\\fR(7) and by \\fBnumabind vars\\fR.\n"
      ".SH SEE ALSO\n\\fBnumabind\\fR(7), \\fBnumactl\\fR(8), \\fBtaskset\\fR(1), \\fBld.so\\fR(8)\n";
  fputs(page.c_str(), out);
}

void PrintPage7(FILE* out) {
  std::string page = Header(7, "Miscellaneous Information Manual");
  page +=
      ".SH NAME\nnumabind \\- NUMA binding of the ranks of parallel jobs: variables and rules\n"
      ".SH DESCRIPTION\n"
      "libnumabind.so is preloaded into a launcher (LD_PRELOAD, \\fBnumabind run\\fR, or site-wide through "
      "/etc/profile.d/numabind.sh or /etc/ld.so.preload). It intercepts the calls by which the launcher "
      "starts programs, recognises which new processes are ranks, and starts each one already bound to the "
      "CPUs and memory policy that its plan gives it. It does nothing in a process whose environment lacks "
      "NUMABIND_POLICY, and nothing at all in a secure-execution process (setuid or file capabilities), "
      "whatever its environment holds.\n"
      ".SH VARIABLES\n.ad l\n";  // left-aligned: a value list broken at "|" leaves nothing to spread
  for (int i = 0; i < config::kVarCount; ++i) {
    const config::VarInfo& v = config::kVars[i];
    std::string dflt =
        v.dflt != nullptr ? std::string("Default: ") + v.dflt : std::string("Unset: ") + v.unset;
    // Long value lists may break after each "|" (\: is roff's invisible break point).
    char accepts[256];
    config::VarValues(i, accepts, sizeof(accepts));
    std::string values = Roff(accepts);
    for (size_t p = values.find('|'); p != std::string::npos; p = values.find('|', p + 3))
      values.insert(p + 1, "\\:");
    page +=
        ".TP\n" + Bold(v.name) + "=\\fI" + values + "\\fR\n" + Roff(v.meaning) + "\n" + Roff(dflt) + ".\n";
  }
  page += ".ad\n.PP\nAn empty value counts as unset, except for NUMABIND_MATCH, where it matches nothing.\n";
  page +=
      ".SH WHICH SPAWNS ARE RANKS\n"
      ".TP\nBy environment\n"
      "A program is a rank when the environment it is started with carries a local-rank variable that the "
      "launcher's own start-up environment did not: NUMABIND_RANK_VAR if set, else the first of these, with "
      "the local size that goes with it (SLURM_LOCALID last: launchers inside a Slurm step inherit it, "
      "stale):\n.RS\n";
  for (int i = 0; i < config::kRankVarCount; ++i) {
    const config::RankVar& r = config::kRankVars[i];
    page += Bold(r.rank) + (r.size != nullptr ? " (" + Roff(r.size) + ")" : std::string()) + "\n.br\n";
  }
  page +=
      ".RE\n"
      "So a rank's own children keep its binding, and a taskset or numactl inside a rank keeps its "
      "narrower one.\n"
      ".TP\nBy order\n"
      "Spawns whose command line matches NUMABIND_MATCH, made by a process that is not itself a rank, take "
      "local ranks 0, 1, 2... numbered by how many matching children the launcher has alive.\n"
      ".TP\nForked workers\n"
      "A forked worker that never execs becomes a rank when it sets its rank variable (setenv, putenv), "
      "and is bound then.\n"
      ".SH SITE\\-WIDE USE\n"
      "The package installs /etc/profile.d/numabind.sh, which adds libnumabind.so to LD_PRELOAD of login "
      "shells once, keeping what is there, and does nothing when NUMABIND_DISABLE=1. Its path names the "
      "dynamic loader's $LIB, so that a 32\\-bit program loads an empty library of its own class. For "
      "processes that no login shell starts (daemons, remote commands), an administrator adds the one line "
      "/usr/$LIB/libnumabind.so to /etc/ld.so.preload. NUMABIND_DISABLE=1 turns numabind off for one "
      "job; removing the package turns it off for the machine.\n"
      ".PP\nThe library finds the planner helper it runs only at the path fixed when it was built "
      "(/usr/libexec/numabind/numabind in the package), never relative to its own location, and runs it "
      "only in a configured process that is not secure\\-execution.\n"
      ".SH SEE ALSO\n\\fBnumabind\\fR(1), \\fBld.so\\fR(8), \\fBset_mempolicy\\fR(2), "
      "\\fBsched_setaffinity\\fR(2)\n";
  fputs(page.c_str(), out);
}

}  // namespace

int ManMain(const Invocation& call) {
  ParsedArgs parsed;
  int started = StartCommand(call, &parsed);  // one of 1 and 7
  if (started >= 0) return started;
  if (parsed.positionals[0] == "1")
    PrintPage1(call.out);
  else
    PrintPage7(call.out);
  return 0;
}

}  // namespace numabind::cli
