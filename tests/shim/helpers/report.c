/* report: a rank reporter for the shim's tests. Prints ONE JSON line describing where it landed:
 *   {"pid":1,"ppid":0,"host":"n1","rank":"1","rank_var":"LOCAL_RANK","cpus":"0-3","cpus_status":"0-3",
 *    "parent_cpus":"0-7","mems":"0-1","policy":"bind","policy_nodes":"0","page_node":0,"fds":3,
 *    "fd_list":"0-2","env_count":12,"env_hash":"a1b2...","env":{"NAME":"value"},"pages":{"0":256}}
 * host: the node name (uname), which tells the hosts of tests/cluster apart (each has its own UTS namespace).
 * rank: the first rank variable set (NUMABIND_RANK_VAR's, then the launchers' local-rank variables in the
 * shim's precedence, then NB_TEST_RANK), "" if none. cpus: sched_getaffinity; cpus_status and mems:
 * Cpus_allowed_list and Mems_allowed_list of /proc/self/status; parent_cpus: the parent's Cpus_allowed_list
 * (is the launcher that started this rank still on all its CPUs?). policy/policy_nodes: get_mempolicy.
 * page_node: node of a freshly touched page (-1 if unknown). fds: open descriptors at start (not counting
 * the one reading /proc/self/fd). env_hash: FNV-1a over environ in order, skipping --env-skip names.
 * Options: --out FILE  append the line to FILE (one O_APPEND write) instead of stdout
 *          --hold      stay alive after reporting until standard input ends (the launcher holds a pipe)
 *          --touch MB  touch MB of fresh memory and add "pages":{"node":count} from /proc/self/numa_maps
 *          --touch-node N  bind that memory to node N first (mbind MPOL_BIND): a rank that keeps memory on
 *                      another node until it exits
 *          --env NAME  add NAME's value (null when unset) to "env"; repeatable
 *          --env-skip NAME  leave NAME out of env_hash and env_count; repeatable
 * Raw system calls for memory policy: no libnuma. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define MPOL_F_NODE (1 << 0)
#define MPOL_F_ADDR (1 << 1)
/* MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES | MPOL_F_NUMA_BALANCING */
#define MPOL_MODE_FLAGS_MASK 0xe000
#define kMaxNodeBits 4096
#define kMaxArgs 32

extern char** environ;

static char out_buf[65536];
static size_t out_len;

static void Put(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
static void Put(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(out_buf + out_len, sizeof out_buf - out_len, fmt, ap);
  va_end(ap);
  if (n > 0) out_len += (size_t)n < sizeof out_buf - out_len ? (size_t)n : sizeof out_buf - out_len - 1;
}

/* Appends a JSON string (quotes, backslashes and control characters escaped). */
static void PutString(const char* s) {
  Put("\"");
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      Put("\\%c", c);
    else if (c < 0x20)
      Put("\\u%04x", c);
    else
      Put("%c", c);
  }
  Put("\"");
}

/* Formats bits [0, nbits) of a bit test function as a Linux list ("0-3,8"). */
static void FormatList(char* dst, size_t cap, int nbits, int (*test)(const void*, int), const void* arg) {
  size_t len = 0;
  dst[0] = 0;
  for (int i = 0; i < nbits; i++) {
    if (!test(arg, i)) continue;
    int j = i;
    while (j + 1 < nbits && test(arg, j + 1)) j++;
    int n = i == j ? snprintf(dst + len, cap - len, "%s%d", len ? "," : "", i)
                   : snprintf(dst + len, cap - len, "%s%d-%d", len ? "," : "", i, j);
    if (n < 0 || (size_t)n >= cap - len) return;
    len += (size_t)n;
    i = j;
  }
}

struct CpuArg {
  cpu_set_t* set;
  size_t size;
};
static int TestCpu(const void* p, int i) {
  const struct CpuArg* a = p;
  return CPU_ISSET_S(i, a->size, a->set);
}
static int TestBit(const void* p, int i) {
  const unsigned long* m = p;
  return (m[i / (8 * sizeof(long))] >> (i % (8 * sizeof(long)))) & 1;
}
static int TestFd(const void* p, int i) {
  const unsigned char* m = p;
  return m[i];
}

/* The value of "Key:\t..." in a /proc/PID/status file, without the newline. */
static void StatusFieldOf(const char* path, const char* key, char* dst, size_t cap) {
  static char buf[16384];
  dst[0] = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return;
  buf[n] = 0;
  size_t klen = strlen(key);
  for (char* line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
    if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
      char* v = line + klen + 1;
      while (*v == ' ' || *v == '\t') v++;
      size_t len = strcspn(v, "\n");
      if (len >= cap) len = cap - 1;
      memcpy(dst, v, len);
      dst[len] = 0;
      return;
    }
  }
}
static void StatusField(const char* key, char* dst, size_t cap) {
  StatusFieldOf("/proc/self/status", key, dst, cap);
}

static const char* RankVar(void) {
  static const char* const kVars[] = {"LOCAL_RANK",
                                      "OMPI_COMM_WORLD_LOCAL_RANK",
                                      "MPI_LOCALRANKID",
                                      "PMI_LOCAL_RANK",
                                      "PALS_LOCAL_RANKID",
                                      "MV2_COMM_WORLD_LOCAL_RANK",
                                      "JSM_NAMESPACE_LOCAL_RANK",
                                      "FLUX_TASK_LOCAL_ID",
                                      "MPT_LRANK",
                                      "SLURM_LOCALID",
                                      "NB_TEST_RANK"};
  const char* own = getenv("NUMABIND_RANK_VAR");
  if (own && *own && getenv(own)) return own;
  for (size_t i = 0; i < sizeof kVars / sizeof kVars[0]; i++)
    if (getenv(kVars[i])) return kVars[i];
  return NULL;
}

static int InList(const char* entry, char** names, int count) {
  for (int i = 0; i < count; i++) {
    size_t len = strlen(names[i]);
    if (strncmp(entry, names[i], len) == 0 && entry[len] == '=') return 1;
  }
  return 0;
}

/* Counts the pages of [addr, addr+len) per node from the numa_maps line of the VMA starting at addr. */
static void PutPages(void* addr) {
  static char buf[1 << 20];
  int fd = open("/proc/self/numa_maps", O_RDONLY | O_CLOEXEC);
  size_t total = 0;
  ssize_t n;
  while (fd >= 0 && total < sizeof buf - 1 && (n = read(fd, buf + total, sizeof buf - 1 - total)) > 0)
    total += (size_t)n;
  if (fd >= 0) close(fd);
  buf[total] = 0;
  char key[32];
  snprintf(key, sizeof key, "%lx ", (unsigned long)addr);
  Put(",\"pages\":{");
  for (char* line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
    if (strncmp(line, key, strlen(key)) != 0) continue;
    int first = 1;
    char* end = strchr(line, '\n');
    for (char* p = line; (p = strstr(p, " N")) && (!end || p < end); p++) {
      int node;
      long count;
      if (sscanf(p, " N%d=%ld", &node, &count) == 2) {
        Put("%s\"%d\":%ld", first ? "" : ",", node, count);
        first = 0;
      }
    }
    break;
  }
  Put("}");
}

int main(int argc, char** argv) {
  const char* out = NULL;
  long touch_mb = 0, touch_node = -1;
  int hold = 0;
  char *env_names[kMaxArgs], *skip_names[kMaxArgs];
  int n_env = 0, n_skip = 0;
  for (int i = 1; i < argc; i++) {
    int has = i + 1 < argc;
    if (has && strcmp(argv[i], "--out") == 0)
      out = argv[++i];
    else if (strcmp(argv[i], "--hold") == 0)
      hold = 1;
    else if (has && strcmp(argv[i], "--touch") == 0)
      touch_mb = atol(argv[++i]);
    else if (has && strcmp(argv[i], "--touch-node") == 0)
      touch_node = atol(argv[++i]);
    else if (has && strcmp(argv[i], "--env") == 0 && n_env < kMaxArgs)
      env_names[n_env++] = argv[++i];
    else if (has && strcmp(argv[i], "--env-skip") == 0 && n_skip < kMaxArgs)
      skip_names[n_skip++] = argv[++i];
    else {
      fprintf(stderr,
              "usage: report [--out FILE] [--hold] [--touch MB [--touch-node N]] [--env NAME]... "
              "[--env-skip NAME]...\n");
      return 2;
    }
  }

  /* Descriptors first, before this program opens anything of its own. */
  static unsigned char open_fds[65536];
  int fds = 0, max_fd = 0;
  DIR* dir = opendir("/proc/self/fd");
  if (dir) {
    for (struct dirent* e; (e = readdir(dir));) {
      int fd = atoi(e->d_name);
      if (e->d_name[0] == '.' || fd == dirfd(dir) || fd >= (int)sizeof open_fds) continue;
      open_fds[fd] = 1;
      fds++;
      if (fd + 1 > max_fd) max_fd = fd + 1;
    }
    closedir(dir);
  }

  struct utsname uts;
  if (uname(&uts) != 0) uts.nodename[0] = 0;
  Put("{\"pid\":%d,\"ppid\":%d,\"host\":", (int)getpid(), (int)getppid());
  PutString(uts.nodename);
  Put(",\"rank\":");
  const char* rank_var = RankVar();
  PutString(rank_var ? getenv(rank_var) : "");
  Put(",\"rank_var\":");
  PutString(rank_var ? rank_var : "");

  static char list[65536];
  for (int ncpus = 1024; ncpus <= (1 << 20); ncpus *= 2) {
    size_t size = CPU_ALLOC_SIZE(ncpus);
    cpu_set_t* set = CPU_ALLOC(ncpus);
    if (sched_getaffinity(0, size, set) == 0) {
      struct CpuArg arg = {set, size};
      FormatList(list, sizeof list, ncpus, TestCpu, &arg);
      CPU_FREE(set);
      break;
    }
    CPU_FREE(set);
    if (errno != EINVAL) {
      snprintf(list, sizeof list, "error %d", errno);
      break;
    }
  }
  Put(",\"cpus\":");
  PutString(list);
  StatusField("Cpus_allowed_list", list, sizeof list);
  Put(",\"cpus_status\":");
  PutString(list);
  char parent_status[64];
  snprintf(parent_status, sizeof parent_status, "/proc/%d/status", (int)getppid());
  StatusFieldOf(parent_status, "Cpus_allowed_list", list, sizeof list);
  Put(",\"parent_cpus\":");
  PutString(list);
  StatusField("Mems_allowed_list", list, sizeof list);
  Put(",\"mems\":");
  PutString(list);

  static const char* const kModes[] = {"default",        "preferred",          "bind", "interleave", "local",
                                       "preferred_many", "weighted_interleave"};
  static unsigned long mask[kMaxNodeBits / (8 * sizeof(long))];
  int mode = -1;
  if (syscall(SYS_get_mempolicy, &mode, mask, (unsigned long)kMaxNodeBits, NULL, 0UL) != 0)
    mode = -1;
  else
    mode &= ~MPOL_MODE_FLAGS_MASK;
  Put(",\"policy\":");
  PutString(mode >= 0 && mode < 7 ? kModes[mode] : "unknown");
  FormatList(list, sizeof list, kMaxNodeBits, TestBit, mask);
  Put(",\"policy_nodes\":");
  PutString(mode >= 0 ? list : "");

  int page_node = -1;
  long page = sysconf(_SC_PAGESIZE);
  char* fresh = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (fresh != MAP_FAILED) {
    fresh[0] = 1;
    if (syscall(SYS_get_mempolicy, &page_node, NULL, 0UL, fresh,
                (unsigned long)(MPOL_F_NODE | MPOL_F_ADDR)) != 0)
      page_node = -1;
    munmap(fresh, (size_t)page);
  }
  Put(",\"page_node\":%d", page_node);

  FormatList(list, sizeof list, max_fd, TestFd, open_fds);
  Put(",\"fds\":%d,\"fd_list\":", fds);
  PutString(list);

  uint64_t hash = 1469598103934665603ULL;
  int env_count = 0;
  for (char** e = environ; *e; e++) {
    if (InList(*e, skip_names, n_skip)) continue;
    env_count++;
    for (const char* c = *e;; c++) { /* hash the terminating NUL too, so entries cannot run together */
      hash = (hash ^ (unsigned char)*c) * 1099511628211ULL;
      if (!*c) break;
    }
  }
  Put(",\"env_count\":%d,\"env_hash\":\"%016llx\",\"env\":{", env_count, (unsigned long long)hash);
  for (int i = 0; i < n_env; i++) {
    const char* v = getenv(env_names[i]);
    Put("%s", i ? "," : "");
    PutString(env_names[i]);
    Put(":");
    if (v)
      PutString(v);
    else
      Put("null");
  }
  Put("}");

  if (touch_mb > 0) {
    size_t len = (size_t)touch_mb << 20;
    char* mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem != MAP_FAILED) {
      /* A VMA of its own (different flags never merge), so numa_maps has one line starting at mem. */
      madvise(mem, len, MADV_DONTFORK);
      if (touch_node >= 0 && touch_node < 64) {
        unsigned long mask = 1ul << touch_node;
        syscall(SYS_mbind, mem, len, 2 /* MPOL_BIND */, &mask, 65ul, 0u);
      }
      for (size_t off = 0; off < len; off += (size_t)page) mem[off] = 1;
      PutPages(mem);
    } else {
      Put(",\"pages\":{}");
    }
  }
  Put("}\n");

  int fd = out ? open(out, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : 1;
  if (fd < 0) {
    perror(out);
    return 1;
  }
  if (write(fd, out_buf, out_len) != (ssize_t)out_len) {
    perror("report: write");
    return 1;
  }
  if (out) close(fd);
  char c;
  while (hold && (read(0, &c, 1) > 0 || errno == EINTR)) {
  }
  return 0;
}
