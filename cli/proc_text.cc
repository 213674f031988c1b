// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0

#include "cli/proc_text.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>

namespace numabind::cli {

int ReadProcFile(const std::string& path, size_t max, std::string* out) {
  out->clear();
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  char buf[8192];
  while (out->size() < max) {
    ssize_t n = read(fd, buf, std::min(sizeof(buf), max - out->size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      close(fd);
      return e;
    }
    if (n == 0) break;
    out->append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return 0;
}

bool StatusValue(const std::string& status, const char* name, std::string* out) {
  std::string key = std::string(name) + ":";
  for (size_t pos = 0; pos < status.size();) {
    size_t end = status.find('\n', pos);
    if (end == std::string::npos) end = status.size();
    if (status.compare(pos, key.size(), key) == 0) {
      size_t v = pos + key.size();
      while (v < end && (status[v] == ' ' || status[v] == '\t')) ++v;
      *out = status.substr(v, end - v);
      return true;
    }
    pos = end + 1;
  }
  return false;
}

std::vector<std::string> ProcStrings(const std::string& text) {
  std::vector<std::string> out;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find('\0', pos);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

}  // namespace numabind::cli
