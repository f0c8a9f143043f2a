/*
 * Each thread's logs of the runtimes it calls (runtime/logs.h): a table in
 * thread-local storage, grown as the thread calls more runtimes (never an
 * entry given up while the thread may hold its log's pointer), freed by a
 * thread-specific key's destructor when the thread exits. The key goes
 * when the library is unloaded, so that no thread exits into unmapped code.
 */
#include "runtime/logs.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

typedef struct {
    uint64_t id; /* 0: free */
    StrBuf log;
} Slot;

typedef struct {
    Slot *slot;
    unsigned n, cap;
} ThreadLogs;

static _Thread_local ThreadLogs *mine;
static pthread_key_t key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static atomic_int key_ok;

static void free_table(ThreadLogs *t)
{
    for (unsigned i = 0; i < t->n; i++)
        sb_free(&t->slot[i].log);
    free(t->slot);
    free(t);
}

/* (runs in the exiting thread: a call from a destructor that runs after
 * it starts a new table, which the key's next round frees) */
static void free_logs(void *p)
{
    free_table(p);
    if (mine == p)
        mine = NULL;
}

static void make_key(void) { atomic_store(&key_ok, pthread_key_create(&key, free_logs) == 0); }

/* dlclose: the other threads' tables are left (a leak, not a jump into unmapped code) */
__attribute__((destructor)) static void delete_key(void)
{
    if (atomic_exchange(&key_ok, 0))
        pthread_key_delete(key);
}

uint64_t tc_log_id(void)
{
    static atomic_uint_fast64_t next = 1;
    return (uint64_t)atomic_fetch_add(&next, 1);
}

StrBuf *tc_thread_log(uint64_t id, int create)
{
    if (!mine && create) {
        pthread_once(&key_once, make_key);
        if (!atomic_load(&key_ok) || !(mine = calloc(1, sizeof *mine)))
            return NULL;
        if (pthread_setspecific(key, mine) != 0) { /* (nothing would free it) */
            free(mine);
            mine = NULL;
            return NULL;
        }
    }
    if (!mine)
        return NULL;
    Slot *free_slot = NULL;
    for (unsigned i = 0; i < mine->n; i++) {
        if (mine->slot[i].id == id)
            return &mine->slot[i].log;
        if (!mine->slot[i].id && !free_slot)
            free_slot = &mine->slot[i];
    }
    if (!create)
        return NULL;
    if (!free_slot) {
        if (mine->n == mine->cap) {
            unsigned cap = mine->cap ? 2 * mine->cap : 4;
            Slot *s = realloc(mine->slot, cap * sizeof *s); /* (moves the StrBufs, not their text) */
            if (!s)
                return NULL;
            mine->slot = s;
            mine->cap = cap;
        }
        free_slot = &mine->slot[mine->n++];
    }
    free_slot->id = id;
    sb_init(&free_slot->log);
    return &free_slot->log;
}

void tc_thread_log_drop(uint64_t id)
{
    if (!mine)
        return;
    unsigned left = 0;
    for (unsigned i = 0; i < mine->n; i++) {
        if (mine->slot[i].id == id) {
            sb_free(&mine->slot[i].log);
            mine->slot[i].id = 0;
        }
        left += mine->slot[i].id != 0;
    }
    if (!left) { /* (the main thread's destructor never runs: its last runtime takes the table along) */
        pthread_setspecific(key, NULL);
        free_table(mine);
        mine = NULL;
    }
}
