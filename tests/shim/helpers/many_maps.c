/* many_maps N KIB: maps N anonymous regions of KIB KiB each, touches every page, then exits by exit(0).
 * Neighbouring regions get alternating protections, so that the kernel keeps them as N mappings (N lines of
 * /proc/self/numa_maps). A rank's end then measures them (shim/rank/locality.h): its cost at exit, and the
 * bound on what it reads ("partial"). Prints "maps N kib KIB" when done. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: many_maps N KIB\n");
    return 2;
  }
  long n = atol(argv[1]), kib = atol(argv[2]);
  size_t size = (size_t)kib * 1024;
  for (long i = 0; i < n; i++) {
    int prot = i % 2 == 0 ? PROT_READ | PROT_WRITE : PROT_READ | PROT_WRITE | PROT_EXEC;
    char* p = mmap(NULL, size, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      perror("mmap");
      return 1;
    }
    for (size_t at = 0; at < size; at += 4096) p[at] = 1;
  }
  printf("maps %ld kib %ld\n", n, kib);
  fflush(stdout);
  exit(0);
}
