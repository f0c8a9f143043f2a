/*
 * A runtime's settings from the environment and options (settings.h).
 *
 * Needs: ptxas_path (ptxas.h) for the default ptxas. Guarantees: every field set (strings owned by
 * the settings) on success; on failure nothing to free.
 */
#include "runtime/settings.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/ptxas.h"

static int word_off(const char *v)
{
    return !strcmp(v, "0") || !strcasecmp(v, "off") || !strcasecmp(v, "no") || !strcasecmp(v, "false");
}

/* "1".."max" in decimal -> *n; 0 if not */
static int parse_count(const char *v, unsigned long max, unsigned *n)
{
    char *end;
    if (*v < '0' || *v > '9')
        return 0;
    unsigned long x = strtoul(v, &end, 10);
    if (*end || x > max)
        return 0;
    *n = (unsigned)x;
    return 1;
}

/* A variable's 0 / 1 switch; unset: unchanged; another value: noted. */
static void env_switch(const char *name, const char *what, int *out, StrBuf *log)
{
    const char *v = getenv(name);
    if (!v)
        return;
    if (!strcmp(v, "0") || !strcmp(v, "1"))
        *out = v[0] - '0';
    else
        sb_printf(log, "note: %s=%s is neither 0 nor 1: %s by the default rule\n", name, v, what);
}

/* A variable's count from 1 to max; unset: unchanged; another value: noted. */
static void env_count(const char *name, unsigned long max, unsigned *out, StrBuf *log)
{
    const char *v = getenv(name);
    unsigned n;
    if (!v || !v[0])
        return;
    if (parse_count(v, max, &n) && n >= 1)
        *out = n;
    else
        sb_printf(log, "note: %s=%s is not a number from 1 to %lu: ignored\n", name, v, max);
}

static int set_string(char **dst, const char *v)
{
    char *s = v ? strdup(v) : NULL;
    if (v && !s)
        return -1;
    free(*dst);
    *dst = s;
    return 0;
}

static void from_env(TcSettings *s, StrBuf *log, int *oom)
{
    const char *v = getenv("TILEC_CACHE");
    if (v && word_off(v))
        s->cache = 0;
    v = getenv("TILEC_CACHE_DIR");
    if (v && v[0] && set_string(&s->cache_dir, v))
        *oom = 1;
    if (set_string(&s->ptxas, ptxas_path()))
        *oom = 1;
    env_switch("TILEC_STAGE", "staging", &s->stage, log);
    env_switch("TILEC_PREROUND", "pre-rounding", &s->preround, log);
    int tma_only = 1;
    env_switch("TILEC_JIT_TMA_ONLY", "the JIT's options", &tma_only, log);
    s->jit_tma_only = tma_only;
    env_count("TILEC_PERSIST_BLOCKS", 65535, &s->persist_blocks, log);
    env_count("TILEC_TUNE_JOBS", 1024, &s->tune_jobs, log);
    v = getenv("TILEC_TUNE_VERBOSE");
    s->tune_verbose = v && v[0] && strcmp(v, "0");
}

/* "never" / "auto" / "always" -> TC_SWITCH_*; 0 if none of them */
static int parse_switch(const char *v, int *out)
{
    static const char *const words[] = {"never", "auto", "always"};
    static const int values[] = {TC_SWITCH_NEVER, TC_SWITCH_AUTO, TC_SWITCH_ALWAYS};
    for (int i = 0; i < 3; i++)
        if (!strcmp(v, words[i])) {
            *out = values[i];
            return 1;
        }
    return 0;
}

/* opt's value after "name=", or NULL when opt is not that option */
static const char *value_of(const char *opt, const char *name)
{
    size_t n = strlen(name);
    return !strncmp(opt, name, n) && opt[n] == '=' ? opt + n + 1 : NULL;
}

/* One option over s: 0, -1 (explained in log), -2 out of memory. */
static int apply_option(TcSettings *s, const char *o, StrBuf *log)
{
    const char *v;
    unsigned n;
    if (!strcmp(o, "--no-cache"))
        s->cache = 0;
    else if (!strcmp(o, "--cache"))
        s->cache = 1;
    else if ((v = value_of(o, "--cache-dir"))) {
        if (!v[0]) {
            sb_printf(log, "error: '%s': the directory is empty\n", o);
            return -1;
        }
        s->cache = 1;
        return set_string(&s->cache_dir, v) ? -2 : 0;
    } else if (!strcmp(o, "--no-ptxas"))
        return set_string(&s->ptxas, NULL);
    else if ((v = value_of(o, "--ptxas"))) {
        struct stat st;
        if (stat(v, &st) != 0 || !S_ISREG(st.st_mode) || access(v, X_OK) != 0) {
            sb_printf(log, "error: '%s': not an executable file\n", o);
            return -1;
        }
        return set_string(&s->ptxas, v) ? -2 : 0;
    } else if ((v = value_of(o, "--stage")) || (v = value_of(o, "--preround"))) {
        if (!parse_switch(v, o[2] == 's' ? &s->stage : &s->preround)) {
            sb_printf(log, "error: '%s': the value is never, auto or always\n", o);
            return -1;
        }
    } else if (!strcmp(o, "--jit-tma-only") || !strcmp(o, "--no-jit-tma-only"))
        s->jit_tma_only = o[2] == 'j';
    else if ((v = value_of(o, "--persist-blocks")) || (v = value_of(o, "--tune-jobs"))) {
        int persist = o[2] == 'p';
        if (!parse_count(v, persist ? 65535 : 1024, &n)) {
            sb_printf(log, "error: '%s': the value is a number from 0 (%s) to %u\n", o,
                      persist ? "no cap" : "one per CPU", persist ? 65535 : 1024);
            return -1;
        }
        *(persist ? &s->persist_blocks : &s->tune_jobs) = n;
    } else if (!strcmp(o, "--tune-verbose"))
        s->tune_verbose = 1;
    else {
        sb_printf(log, "error: unknown runtime option '%s' (include/tilec.h, tilecRuntimeCreateWithOptions)\n", o);
        return -1;
    }
    return 0;
}

int tc_settings_init(TcSettings *s, int nopts, const char *const *opts, StrBuf *log, int *oom)
{
    *s = (TcSettings){.cache = 1, .stage = TC_SWITCH_AUTO, .preround = TC_SWITCH_AUTO, .jit_tma_only = 1};
    *oom = 0;
    from_env(s, log, oom);
    int bad = 0;
    for (int i = 0; i < nopts && !*oom; i++) {
        int r = opts[i] ? apply_option(s, opts[i], log) : (sb_puts(log, "error: option is NULL\n"), -1);
        if (r == -2)
            *oom = 1;
        bad |= r != 0;
    }
    if (*oom || bad || log->oom) {
        *oom |= log->oom;
        tc_settings_free(s);
        return -1;
    }
    return 0;
}

void tc_settings_free(TcSettings *s)
{
    free(s->cache_dir);
    free(s->ptxas);
    s->cache_dir = s->ptxas = NULL;
}
