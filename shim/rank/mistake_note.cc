// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The note of a mistake self-binding ranks share (shim/rank/mistake_note.h). Runs in the constructor of a
// rank that is about to run unbound: raw system calls, no allocation.

#include "shim/rank/mistake_note.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#include "base/dir_entries.h"
#include "base/syscalls.h"
#include "base/text.h"
#include "shim/launcher/basis_cache.h"
#include "shim/log/log.h"
#include "shim/state/state.h"

namespace numabind::shim {
namespace {

/// A note older than this is removed by the next rank that writes one: its job is most likely over, and a
/// rank of a job still running only says its mistake once more.
constexpr long kNoteSeconds = 24L * 3600;

/// FNV-1a over a NUL-terminated string, its NUL included (so that "ab"+"c" and "a"+"bc" differ).
uint64_t Mix(uint64_t h, const char* s) {
  for (;; ++s) {
    h = (h ^ static_cast<unsigned char>(*s)) * 1099511628211ull;
    if (*s == '\0') return h;
  }
}

/// Removes the notes in `dir` older than kNoteSeconds, so that the directory does not gather one per job.
void RemoveOldNotes(int dir) {
  int list = base::OpenAt(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (list < 0) return;
  timespec now = base::ClockNow(CLOCK_REALTIME);
  base::ForEachDirEntry(list, [&](const char* name) {
    struct stat st;
    if (base::StartsWith(name, "note-") && base::FstatAt(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        now.tv_sec - st.st_mtim.tv_sec > kNoteSeconds)
      base::UnlinkAt(dir, name, 0);
  });
  base::Sys6(SYS_close, list);
}

}  // namespace

void NoteSharedMistake(const char* text) {
  uint32_t& said = g_prepared.own_mistake_said;  // this rank's word: it has no launcher's to share
  int dir = OpenSharedDirectory();
  if (dir < 0) return;
  uint64_t h = Mix(14695981039346656037ull, text);
  const char* job = JobId();
  // No job: its launch, the parent's pid and start time (g_prepared.launch, set before it prepared), so that
  // a later launch by a reused pid says the mistake again.
  h = base::StrEq(job, "nojob") ? Mix(Mix(h, ""), g_prepared.launch) : Mix(h, job);
  char name[] = "note-0123456789abcdef";
  for (int i = 0; i < 16; ++i) name[5 + i] = "0123456789abcdef"[(h >> (60 - 4 * i)) & 15];
  int fd = base::OpenAt(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
  if (fd >= 0) {
    // What was said, for whoever wonders why the other ranks were silent.
    base::Sys6(SYS_write, fd, reinterpret_cast<long>(text), static_cast<long>(base::StrLen(text)));
    base::Sys6(SYS_write, fd, reinterpret_cast<long>("\n"), 1);
    base::Sys6(SYS_close, fd);
    RemoveOldNotes(dir);
    said = 0;
  } else if (fd == -EEXIST) {
    said = 1;
  }
  base::Sys6(SYS_close, dir);
  if (fd < 0 && fd != -EEXIST) return;  // cannot tell: say it
  g_prepared.mistake_said = &said;
}

}  // namespace numabind::shim
