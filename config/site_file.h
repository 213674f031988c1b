// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// The site file (docs/site.md): a machine's defaults for the NUMABIND_* variables, one
// `NUMABIND_NAME=value` per line, read by the library in the processes that start ranks or are ranks and by
// the command (`numabind vars`, `vars --check`, `run`, `plan`), with the same code. Each line's value goes
// through config::ParseVar, as the environment's do; an unknown name is warned about and ignored, as in the
// environment. Read with raw system calls into the caller's SiteFile: no allocation, no stdio, libc alone.

#ifndef NUMABIND_CONFIG_SITE_FILE_H_
#define NUMABIND_CONFIG_SITE_FILE_H_

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "config/vars.h"

namespace numabind::config {

/// The site file compiled in (the Makefile's SITE_FILE, $(SYSCONFDIR)/numabind.conf: /etc/numabind.conf).
extern const char kSiteFilePath[];

/// The largest site file read; a larger one is an error.
constexpr size_t kSiteFileMax = 16384;

/// A site file read into memory. Its variables point into `text`, where each line is cut at its end: a
/// Config that a site file filled holds pointers into it, so it must outlive that Config. No member
/// initializers, so that any instance is plain memory (the library maps one only when there is a file).
struct SiteFile {
  const char* path;                ///< the file read, nullptr when there was none (or it was bad)
  int count;                       ///< variables read, each name at most once
  const char* entries[kVarCount];  ///< "NUMABIND_NAME=value", in the file's order
  uint32_t lines[kVarCount];       ///< the line of each entry, from 1
  char text[kSiteFileMax + 1];
};

/// The file a process reads: NUMABIND_CONFIG_FILE's value in `env` (NULL-terminated "NAME=value" array) when
/// set and not empty, else kSiteFilePath; nullptr for "none". Secure-execution processes must not call it
/// (the shim checks AT_SECURE first): the environment must not pick what they read.
const char* SiteFilePath(const char* const* env);
/// The same, of an environment's NUMABIND_* values as its one pass collected them (config/vars.h).
const char* SiteFilePath(const Ours& ours);

/// Told each problem of a site file as it is found, for `numabind vars --check`: `error` false for a
/// warning (an unknown name, ignored); `text` "PATH:LINE: why".
struct SiteListener {
  void (*tell)(void* ctx, bool error, const char* text);
  void* ctx;
};

/// Reads `path` into *site, checking every line: blank lines and lines whose first non-blank character is
/// `#` are skipped; every other line, without the spaces and tabs around it, must be NUMABIND_NAME=value for
/// a variable of config/vars.def (not NUMABIND_CONFIG_FILE, nor NUMABIND_BOUND, which numabind writes) with
/// a value ParseVar accepts, each name once. No quotes, no `export`. A NUMABIND_* name that config/vars.def
/// does not have (a newer version's variable, a typo) is no error: the line is ignored, and the first such
/// line's warning is in err->warning ("PATH:LINE: NUMABIND_POLCY is not a numabind variable (did you mean
/// NUMABIND_POLICY?)"). A missing file (ENOENT, ENOTDIR) is no file: true, site->count 0. Anything wrong (a
/// bad line, an unreadable or too large file) returns false with err "PATH:LINE: NAME=value: why" (or "PATH:
/// why") for the first and leaves site->count 0: the file is ignored as a whole. With a `listener`, every
/// line is checked and every problem (errors and warnings, not an unreadable file's) told to it; without,
/// the first bad line ends the reading. Never allocates; raw system calls only.
bool ReadSiteFile(const char* path, SiteFile* site, Error* err, const SiteListener* listener = nullptr);

/// ReadSiteFile in two steps, for a caller that finds room for the file only when there is one: opens
/// `path` without blocking (a descriptor, never 0-2; -1 when there is no file, ENOENT or ENOTDIR; -2 with err
/// set when it cannot be opened or is not a regular file: a FIFO, a device, a directory), then reads and
/// checks it as ReadSiteFile does, closing `fd`.
int OpenSiteFile(const char* path, Error* err);
bool ReadSiteFd(int fd, const char* path, SiteFile* site, Error* err, const SiteListener* listener = nullptr);

/// ReadSiteFile's checking of a file already in site->text (its first `n` bytes; at most kSiteFileMax),
/// cutting its lines in place; `path` names it in errors. For the fuzz target and the tests.
bool ParseSiteText(const char* path, size_t n, SiteFile* site, Error* err,
                   const SiteListener* listener = nullptr);

/// The site file's value for variable `id` and its line (when `line` is not nullptr), or nullptr.
const char* SiteValue(const SiteFile& site, int id, uint32_t* line);

/// Whether `env` (NULL-terminated "NAME=value" array) sets variable `id`, so that the site file's value of
/// it does not count: a non-empty value, or any value for a variable that reads empty ones (NUMABIND_MATCH).
bool EnvSets(const char* const* env, int id);

/// Gives `out`, which config::Parse filled from `env`, the site file's value of every variable `env` does
/// not set (the environment overrides the file per variable), read by ParseVar. NUMABIND_DISABLE=1 in the
/// file switches numabind off whatever the environment says (out->disabled, not enabled).
void ApplySite(const char* const* env, const SiteFile& site, Config* out);
/// The same, under an environment's NUMABIND_* values as its one pass collected them.
void ApplySite(const Ours& ours, const SiteFile& site, Config* out);

}  // namespace numabind::config

#endif  // NUMABIND_CONFIG_SITE_FILE_H_
