/*
 * Each thread's logs of the runtimes it calls (runtime/logs.h): a table in
 * thread-local storage, freed by a thread-specific key's destructor when
 * the thread exits.
 */
#include "runtime/logs.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

typedef struct {
    struct {
        uint64_t id; /* 0: free */
        uint64_t used;
        StrBuf log;
    } slot[TC_THREAD_LOGS];
    uint64_t clock;
} ThreadLogs;

static _Thread_local ThreadLogs *mine;
static pthread_key_t key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static int key_ok;

/* (runs in the exiting thread: a call from a destructor that runs after
 * it starts a new table, which the key's next round frees) */
static void free_logs(void *p)
{
    ThreadLogs *t = p;
    for (unsigned i = 0; i < TC_THREAD_LOGS; i++)
        sb_free(&t->slot[i].log);
    free(t);
    if (mine == t)
        mine = NULL;
}

static void make_key(void) { key_ok = pthread_key_create(&key, free_logs) == 0; }

uint64_t tc_log_id(void)
{
    static atomic_uint_fast64_t next = 1;
    return (uint64_t)atomic_fetch_add(&next, 1);
}

StrBuf *tc_thread_log(uint64_t id, int create)
{
    if (!mine && create) {
        pthread_once(&key_once, make_key);
        if (!key_ok || !(mine = calloc(1, sizeof *mine)))
            return NULL;
        if (pthread_setspecific(key, mine) != 0) { /* (nothing would free it) */
            free(mine);
            mine = NULL;
            return NULL;
        }
    }
    if (!mine)
        return NULL;
    unsigned lru = 0;
    for (unsigned i = 0; i < TC_THREAD_LOGS; i++) {
        if (mine->slot[i].id == id) {
            mine->slot[i].used = ++mine->clock;
            return &mine->slot[i].log;
        }
        if (mine->slot[i].used < mine->slot[lru].used)
            lru = i;
    }
    if (!create)
        return NULL;
    sb_free(&mine->slot[lru].log); /* a free slot's `used` is 0: the least */
    sb_init(&mine->slot[lru].log);
    mine->slot[lru].id = id;
    mine->slot[lru].used = ++mine->clock;
    return &mine->slot[lru].log;
}

void tc_thread_log_drop(uint64_t id)
{
    if (!mine)
        return;
    unsigned left = 0;
    for (unsigned i = 0; i < TC_THREAD_LOGS; i++) {
        if (mine->slot[i].id == id) {
            sb_free(&mine->slot[i].log);
            mine->slot[i].id = 0;
            mine->slot[i].used = 0;
        }
        left += mine->slot[i].id != 0;
    }
    if (!left) { /* (the main thread's destructor never runs: its last runtime takes the table along) */
        pthread_setspecific(key, NULL);
        free(mine);
        mine = NULL;
    }
}
