// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_LOG_FILE's % sequences (base/log_path.cc): %h, %j, %p and %% expanded, anything else kept, a
// value's '/' never a directory, a result that does not fit refused whole; the job id's order of variables.

#include <criterion/criterion.h>
#include <string.h>
#include <sys/utsname.h>

#include <string>

#include "base/log_path.h"

using numabind::base::ExpandLogPath;
using numabind::base::HasLogPathFields;
using numabind::base::LogJobId;
using numabind::base::LogPathFields;
using numabind::base::ShortHostName;

Test(log_path, expands_host_job_pid_and_percent) {
  LogPathFields f{"n1", "42", "777"};
  char out[64];
  cr_expect_eq(ExpandLogPath("/s/%j/%h.%p.log", f, out, sizeof(out)), strlen("/s/42/n1.777.log"));
  cr_expect_str_eq(out, "/s/42/n1.777.log");
  ExpandLogPath("100%%-%x-%", f, out, sizeof(out));
  cr_expect_str_eq(out, "100%-%x-%");
  ExpandLogPath("/s/%j", LogPathFields{"n1", "1.srv/x", "1"}, out, sizeof(out));
  cr_expect_str_eq(out, "/s/1.srv_x", "a job id's slash adds no directory");
  ExpandLogPath("/s/%j/%h.log", LogPathFields{"n1", "..", "1"}, out, sizeof(out));
  cr_expect_str_eq(out, "/s/__/n1.log", "a job id of .. is no parent directory");
  ExpandLogPath("/s/%j/x", LogPathFields{"n1", ".", "1"}, out, sizeof(out));
  cr_expect_str_eq(out, "/s/_/x", "nor . the same one");
  ExpandLogPath("/s/%j", LogPathFields{"n1", "...", "1"}, out, sizeof(out));
  cr_expect_str_eq(out, "/s/...", "three dots are a name");
  cr_expect(HasLogPathFields("/a/%h"));
  cr_expect(HasLogPathFields("/a/%%"));
  cr_expect_not(HasLogPathFields("/a/%x/b"));
}

Test(log_path, too_long_is_refused_whole) {
  LogPathFields f{"host", "job", "1"};
  char out[8];
  cr_expect_eq(ExpandLogPath("/%h/%j", f, out, sizeof(out)), 0u, "9 bytes with the NUL");
  cr_expect_eq(ExpandLogPath("/%h/j", f, out, sizeof(out)), 7u);
  cr_expect_eq(ExpandLogPath("/%h/jk", f, out, sizeof(out)), 0u);
}

Test(log_path, job_id_in_order_of_schedulers) {
  const char* slurm[] = {"PBS_JOBID=7.pbs", "SLURM_JOB_ID=12", nullptr};
  const char* pbs[] = {"SLURM_JOB_ID=", "LSB_JOBID=9", "PBS_JOBID=7.pbs", nullptr};
  const char* flux[] = {"FLUX_JOB_ID=f2", nullptr};
  const char* none[] = {"HOME=/", nullptr};
  cr_expect_str_eq(LogJobId(slurm), "12");
  cr_expect_str_eq(LogJobId(pbs), "7.pbs", "an empty SLURM_JOB_ID counts as unset");
  cr_expect_str_eq(LogJobId(flux), "f2");
  cr_expect_str_eq(LogJobId(none), "nojob");
}

Test(log_path, short_host_name_is_unames_first_label) {
  utsname u;
  cr_assert_eq(uname(&u), 0);
  std::string want = u.nodename;
  want = want.substr(0, want.find('.'));
  char host[numabind::base::kHostNameMax];
  ShortHostName(host);
  cr_expect_str_eq(host, want.c_str());
}
