/* libearly_thread.so: what OpenBLAS's pthread build does. Its constructor starts a thread, which waits for
 * the whole life of the process, before the constructors of the libraries loaded ahead of it run: the
 * dynamic linker initialises a program's own dependencies before a preloaded library (whatever the order of
 * LD_PRELOAD), so this thread already exists when libnumabind's constructor binds the process. */
#include <pthread.h>
#include <unistd.h>

static int wait_pipe[2];

static void* Idle(void* arg) {
  (void)arg;
  char c;
  while (read(wait_pipe[0], &c, 1) < 0) {
  }  // never written: the thread waits until the process exits, as a BLAS worker does for work
  return NULL;
}

__attribute__((constructor)) static void StartEarlyThread(void) {
  pthread_t t;
  if (pipe(wait_pipe) == 0) pthread_create(&t, NULL, Idle, NULL);
}

/* Referenced by the program, so that the linker keeps this library as its dependency (--as-needed). */
int early_thread_started(void) { return wait_pipe[1] > 0; }
