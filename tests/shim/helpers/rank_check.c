/* rank_check: a rank that checks its own binding, for the stress checks (helpers/stress.c).
 * With NUMABIND_POLICY=cpus:A|B|C... (one CPU per entry) and LOCAL_RANK=r in its environment, it exits 0
 * when its affinity is exactly CPU entry[r mod count], 3 when it is anything else (printing what it got), and
 * 4 when the variables are not of that form. The expectation is read from the policy text by this program
 * alone, never from numabind. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  if (CPU_COUNT(&set) == 1 && CPU_ISSET(want, &set)) return 0;
  int first = 0;
  while (first < CPU_SETSIZE && !CPU_ISSET(first, &set)) ++first;
  fprintf(stderr, "rank_check: rank %d wants CPU %d, runs on %d CPUs from %d\n", rank, want, CPU_COUNT(&set),
          first);
  return 3;
}
