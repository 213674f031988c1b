/* rank_check: a rank that checks its own binding, for the stress checks (helpers/stress.c).
 * With NUMABIND_POLICY=cpus:A|B|C... (one CPU per entry) and LOCAL_RANK=r in its environment, it exits 0
 * when its affinity is exactly CPU entry[r mod count], 3 when it is anything else (printing what it got), and
 * 4 when the variables are not of that form. The expectation is read from the policy text by this program
 * alone, never from numabind. With NB_CHECK_INTERLEAVE=1 its memory policy must be MPOL_INTERLEAVE too
 * (exit 5 otherwise): a value the site file gave (tests/shim/site_file_test.cc). */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void) {
  const char *policy = getenv("NUMABIND_POLICY"), *rank_text = getenv("LOCAL_RANK");
  if (policy == NULL || strncmp(policy, "cpus:", 5) != 0 || rank_text == NULL) return 4;
  int cpus[1024], count = 0;
  for (const char* p = policy + 5; *p != '\0' && count < 1024;) {
    char* end;
    long c = strtol(p, &end, 10);
    if (end == p || (*end != '|' && *end != '\0')) return 4;
    cpus[count++] = (int)c;
    p = *end == '|' ? end + 1 : end;
  }
  int rank = atoi(rank_text);
  if (count == 0 || rank < 0) return 4;
  int want = cpus[rank % count];
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 4;
  const char* interleave = getenv("NB_CHECK_INTERLEAVE");
  if (interleave != NULL && strcmp(interleave, "1") == 0) {
    int mode = -1;
    unsigned long nodes[16] = {0};
    if (syscall(SYS_get_mempolicy, &mode, nodes, 1024, NULL, 0) != 0 || mode != 3 /* MPOL_INTERLEAVE */) {
      fprintf(stderr, "rank_check: rank %d has memory policy %d, not interleave\n", rank, mode);
      return 5;
    }
  }
  if (CPU_COUNT(&set) == 1 && CPU_ISSET(want, &set)) return 0;
  int first = 0;
  while (first < CPU_SETSIZE && !CPU_ISSET(first, &set)) ++first;
  fprintf(stderr, "rank_check: rank %d wants CPU %d, runs on %d CPUs from %d\n", rank, want, CPU_COUNT(&set),
          first);
  return 3;
}
