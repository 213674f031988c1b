// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// NUMABIND_LOG_FORMAT=json: every log line one JSON object of strict UTF-8, written by base/json_writer.h
// into a Line (shim/log/line.h: on the stack, no allocation, raw system calls for the time and host name),
// so the child side of a spawn can write it. These only format; shim/log/log.cc writes. Fields: time (UTC,
// ISO 8601 with milliseconds), host, pid, level; then, for a bound rank, event, rank, nranks, rank_var,
// command, launch (shim/launcher/launch_id.h: "PID@START" or "STEP/PID@START", when known), cpus, nodes,
// memory, device, device_nodes (with a device), entry, replaced (launcher_cpus when true: the binding it
// started with), policy, auto (its share, under auto) and, at NUMABIND_LOG=debug, stack; for a rank not
// bound, event (unbound, refused), rank, nranks, rank_var, command, launch and message; for a rank's exit,
// event (end) and launch; for a site file ignored, or a line of it, event (site_file), ignored (file, line)
// and message; for anything else, message (the text line without "numabind: "). A line that would not fit
// Line::kCapacity leaves out what does not fit (members whole, strings cut between two characters) and ends
// with "truncated":true. The keys are config/log_keys.def's, by which `numabind report` reads them.

#ifndef NUMABIND_SHIM_LOG_JSON_LOG_H_
#define NUMABIND_SHIM_LOG_JSON_LOG_H_

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "config/config.h"
#include "shim/log/end_event.h"
#include "shim/log/line.h"
#include "shim/log/log.h"

namespace numabind::shim {

/// Child-safe: the line of a bound rank, into `out` (empty), with pid (<= 0: null) and, when `stack` is not
/// nullptr, the call stack. A CPU or node list is written whole or not at all: when one did not fit, the
/// line grows (Line::Grow) and is made again. Returns the line's length.
size_t JsonBoundLine(Line* out, const BoundEvent& event, pid_t pid, const char* stack);

/// Child-safe: the line a bound rank writes when it exits, into `out` (empty): time, host, pid, level info,
/// "event":"end" and its launch. Returns the line's length.
size_t JsonEndLine(Line* out, pid_t pid, const char* launch, const Locality& where);

/// Child-safe: `text` (one text log line at `level`, cut short when `truncated`) as a JSON object line, into
/// `out` (empty); with `site_ignored` ("file" or "line"), it says that the site file or one of its lines was
/// ignored: "event":"site_file" and "ignored". Returns the line's length.
size_t JsonMessage(Line* out, config::LogLevel level, const char* text, size_t len, bool truncated,
                   const char* site_ignored = nullptr);

/// Child-safe: the warning `text` about a rank that is not bound (cut short when `truncated`) as a JSON
/// object line with the event's members and message, into `out` (empty). Returns the line's length.
size_t JsonUnbound(Line* out, const UnboundEvent& event, const char* text, size_t len, bool truncated);

/// Child-safe: the line of a fork child that gave back the rank it took at fork (WriteGaveBack), with event
/// "released", into `out` (empty). Returns the line's length.
size_t JsonReleased(Line* out, uint32_t rank, uint32_t nranks, const char* command, const char* launch,
                    const char* text, size_t len, bool truncated);

/// Child-safe: the JSON line saying that NUMABIND_LOG_FILE `file` cannot be written (`why`) and that the log
/// goes to standard error instead, into `out` (empty). Returns the line's length.
size_t JsonLogFileNote(Line* out, const char* file, const char* why);

}  // namespace numabind::shim

#endif  // NUMABIND_SHIM_LOG_JSON_LOG_H_
