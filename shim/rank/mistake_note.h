// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Ranks that bind themselves (srun's tasks, a launcher numabind is not preloaded into) share no launcher to
// count who spoke: a mistake they all have is said once per node and job by the rank that creates its note,
// a file in the user's shared directory (NUMABIND_SHARED/numabind-UID/note-HASH, the hash of the message and
// of the job: SLURM_JOB_ID, PBS_JOBID, LSB_JOBID or FLUX_JOB_ID, else its launch: the launching process's pid
// and start time, g_prepared.launch). The file holds the message. Only a rank with such a mistake opens
// anything.

#ifndef NUMABIND_SHIM_RANK_MISTAKE_NOTE_H_
#define NUMABIND_SHIM_RANK_MISTAKE_NOTE_H_

namespace numabind::shim {

/// A self-binding rank about to say the mistake `text`, which every rank of its job shares: creates its
/// note (O_CREAT|O_EXCL) and sets g_prepared.mistake_said to say whether another rank made it first. Nothing
/// (every rank says it) when the shared directory is off (NUMABIND_SHARED=off) or not the user's own.
void NoteSharedMistake(const char* text);

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_RANK_MISTAKE_NOTE_H_
