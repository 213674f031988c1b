// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// barrier DIR N: a worker that stays alive until N workers have started. It makes DIR/<pid>, then waits
// (up to 10 s) until DIR holds N entries, so that the N workers of one launch all run at once: ranks found
// by order are then all held together, and two with one number are a duplicate, not a reuse.

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int Count(const char* dir) {
  DIR* d = opendir(dir);
  if (d == NULL) return 0;
  int n = 0;
  struct dirent* e;
  while ((e = readdir(d)) != NULL) n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  char path[4096];
  snprintf(path, sizeof(path), "%s/%d", argv[1], (int)getpid());
  int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
  if (fd >= 0) close(fd);
  int want = atoi(argv[2]);
  struct timespec ms = {0, 1000000};
  for (int i = 0; i < 10000 && Count(argv[1]) < want; ++i) nanosleep(&ms, NULL);
  return 0;
}
