/*
 * Independent jobs on threads (compiler/entries.c's entry points,
 * runtime/autotune.c's configuration loads): the calling thread and up to
 * threads - 1 more take jobs 0 .. n-1 from a shared counter until none is
 * left, so a slow job does not hold the others back.
 *
 * Needs: pthreads. Guarantees: every job runs exactly once, and all have
 * finished when tc_parallel returns; a thread that cannot be started leaves
 * its share to the others (the calling thread alone still runs them all).
 */
#include "compiler/compiler.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

enum { MAX_THREADS = 64 };

typedef struct {
    void (*job)(void *ctx, unsigned i);
    void *ctx;
    unsigned n;
    atomic_uint next;
} Jobs;

static void *take_jobs(void *arg)
{
    Jobs *j = arg;
    for (unsigned i; (i = atomic_fetch_add(&j->next, 1)) < j->n;)
        j->job(j->ctx, i);
    return NULL;
}

unsigned tc_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (unsigned)n;
}

unsigned tc_parallel(unsigned n, unsigned threads, void (*job)(void *ctx, unsigned i), void *ctx)
{
    Jobs j = {.job = job, .ctx = ctx, .n = n};
    atomic_init(&j.next, 0);
    unsigned want = threads < n ? threads : n, started = 0;
    if (want > MAX_THREADS)
        want = MAX_THREADS;
    pthread_t t[MAX_THREADS];
    pthread_attr_t attr;
    int attr_ok = pthread_attr_init(&attr) == 0;
    if (attr_ok) /* LLVM recurses: as deep a stack as the main thread's usual one */
        pthread_attr_setstacksize(&attr, 8u << 20);
    while (started + 1 < want && pthread_create(&t[started], attr_ok ? &attr : NULL, take_jobs, &j) == 0)
        started++;
    if (attr_ok)
        pthread_attr_destroy(&attr);
    take_jobs(&j);
    for (unsigned i = 0; i < started; i++)
        pthread_join(t[i], NULL);
    return started + 1;
}
