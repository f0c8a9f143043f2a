/*
 * Each thread's log of each runtime it calls (tilecRuntimeGetLog): a runtime
 * may be shared by threads, and a log that every thread's calls rewrote
 * would give a thread another's message, or, read while another call
 * reallocated it, freed memory (a review's finding, session 30). A thread
 * keeps the logs of the last TC_THREAD_LOGS runtimes it called, freed when
 * it exits or when it destroys the runtime.
 *
 * Needs: runtime ids that are never reused (tc_log_id). Guarantees: a
 * thread's log changes only in that thread's calls.
 */
#ifndef TILEC_LOGS_H
#define TILEC_LOGS_H

#include <stdint.h>

#include "ir/ir.h"

enum { TC_THREAD_LOGS = 16 };

/* A new runtime's id: never 0, never given twice. */
uint64_t tc_log_id(void);

/* The calling thread's log for runtime id; where it has none, a new empty
 * one (with create, the least recently used of its TC_THREAD_LOGS given up
 * where all are taken) or NULL (without create, or out of memory). */
StrBuf *tc_thread_log(uint64_t id, int create);

/* The calling thread's log for runtime id freed (the runtime destroyed). */
void tc_thread_log_drop(uint64_t id);

#endif
