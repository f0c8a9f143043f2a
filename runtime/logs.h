/*
 * Each thread's log of each runtime it calls (tilecRuntimeGetLog): a runtime
 * may be shared by threads, and a log that every thread's calls rewrote
 * would give a thread another's message, or, read while another call
 * reallocated it, freed memory (a review's finding, session 30). A thread
 * keeps a log for each runtime it calls until it destroys the runtime or
 * exits (a runtime destroyed by another thread leaves this thread's log
 * until then).
 *
 * Needs: runtime ids that are never reused (tc_log_id). Guarantees: a
 * thread's log of a runtime changes only in that thread's calls on it, and
 * its text stays where it is until then.
 */
#ifndef TILEC_LOGS_H
#define TILEC_LOGS_H

#include <stdint.h>

#include "ir/ir.h"

/* A new runtime's id: never 0, never given twice. */
uint64_t tc_log_id(void);

/* The calling thread's log for runtime id; where it has none, a new empty
 * one (with create) or NULL (without create, or out of memory). The
 * pointer is good until the next tc_thread_log or tc_thread_log_drop. */
StrBuf *tc_thread_log(uint64_t id, int create);

/* The calling thread's log for runtime id freed (the runtime destroyed). */
void tc_thread_log_drop(uint64_t id);

#endif
