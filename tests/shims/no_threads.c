/* Preloaded by a hostile-input test (LD_PRELOAD): every thread creation fails with EAGAIN, as it
 * does in a container whose pids limit is reached. dtriage must then work on the threads it has. */
#include <errno.h>
#include <pthread.h>

int pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*start)(void*), void* arg) {
  (void)thread;
  (void)attr;
  (void)start;
  (void)arg;
  return EAGAIN;
}
