/*
 * A runtime's settings from the environment and options (settings.h).
 *
 * Needs: ptxas_path (ptxas.h) for the default ptxas. Guarantees: every field set (strings owned by
 * the settings) on success; on failure nothing to free.
 */
#include "runtime/settings.h"

#include <errno.h>
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

/* What the options set: the environment leaves those alone (and is not
 * judged for them). */
enum {
    GIVEN_CACHE = 1 << 0,
    GIVEN_CACHE_DIR = 1 << 1,
    GIVEN_PTXAS = 1 << 2,
    GIVEN_STAGE = 1 << 3,
    GIVEN_PREROUND = 1 << 4,
    GIVEN_TMA_ONLY = 1 << 5,
    GIVEN_PERSIST = 1 << 6,
    GIVEN_JOBS = 1 << 7,
    GIVEN_VERBOSE = 1 << 8,
};

/* A variable's 0 / 1 switch; unset: unchanged; another value: noted. */
static void env_switch(const char *name, const char *what, int *out, StrBuf *log)
{
    const char *v = getenv(name);
    if (!v)
        return;
    if (!strcmp(v, "0") || !strcmp(v, "1"))
        *out = v[0] - '0';
    else
        sb_printf(log, "note: %s=%.200s is neither 0 nor 1: %s by the default rule\n", name, v, what);
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

/* The variables, for what the options did not give. */
static void from_env(TcSettings *s, unsigned given, StrBuf *log, int *oom)
{
    const char *v = getenv("TILEC_CACHE");
    if (!(given & GIVEN_CACHE) && v && word_off(v))
        s->cache = 0;
    v = getenv("TILEC_CACHE_DIR");
    if (!(given & GIVEN_CACHE_DIR) && v && v[0] && set_string(&s->cache_dir, v))
        *oom = 1;
    if (!(given & GIVEN_PTXAS) && set_string(&s->ptxas, ptxas_path()))
        *oom = 1;
    if (!(given & GIVEN_STAGE))
        env_switch("TILEC_STAGE", "staging", &s->stage, log);
    if (!(given & GIVEN_PREROUND))
        env_switch("TILEC_PREROUND", "pre-rounding", &s->preround, log);
    if (!(given & GIVEN_TMA_ONLY))
        env_switch("TILEC_JIT_TMA_ONLY", "the JIT's options", &s->jit_tma_only, log);
    v = getenv("TILEC_PERSIST_BLOCKS");
    unsigned n;
    if (!(given & GIVEN_PERSIST) && v) {
        if (parse_count(v, 65535, &n) && n >= 1)
            s->persist_blocks = n;
        else
            sb_printf(log, "note: TILEC_PERSIST_BLOCKS=%.200s is not a number from 1 to 65535: ignored\n", v);
    }
    /* as strtol reads it: a leading number, at least one thread */
    v = getenv("TILEC_TUNE_JOBS");
    if (!(given & GIVEN_JOBS) && v && v[0]) {
        long jobs = strtol(v, NULL, 10);
        s->tune_jobs = jobs < 1 ? 1 : jobs > 1024 ? 1024 : (unsigned)jobs;
    }
    v = getenv("TILEC_TUNE_VERBOSE");
    if (!(given & GIVEN_VERBOSE))
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

/* Why an unknown option is not one: a hint for the near misses. */
static const char *unknown_hint(const char *o)
{
    static const char *const bare[] = {"--cache-dir", "--ptxas", "--stage", "--preround", "--persist-blocks",
                                       "--tune-jobs"};
    for (size_t i = 0; i < sizeof bare / sizeof bare[0]; i++)
        if (!strcmp(o, bare[i]))
            return ": it takes a value (=...)";
    if (!strncmp(o, "-f", 2) || !strncmp(o, "--arch", 6) || !strncmp(o, "--precision", 11) || !strncmp(o, "-O", 2))
        return ": a compile option (tilecCompileProgram, tilecModuleLoadSource)";
    return "";
}

/* One option over s, its fields marked in *given: 0, -1 (explained in
 * log), -2 out of memory. */
static int apply_option(TcSettings *s, unsigned *given, const char *o, StrBuf *log)
{
    const char *v;
    unsigned n;
    if (!strcmp(o, "--no-cache") || !strcmp(o, "--cache")) {
        s->cache = o[2] == 'c';
        *given |= GIVEN_CACHE;
    } else if ((v = value_of(o, "--cache-dir"))) {
        if (!v[0]) {
            sb_printf(log, "error: '%s': the directory is empty\n", o);
            return -1;
        }
        s->cache = 1;
        *given |= GIVEN_CACHE | GIVEN_CACHE_DIR;
        return set_string(&s->cache_dir, v) ? -2 : 0;
    } else if (!strcmp(o, "--no-ptxas")) {
        *given |= GIVEN_PTXAS;
        return set_string(&s->ptxas, NULL) ? -2 : 0;
    } else if ((v = value_of(o, "--ptxas"))) {
        struct stat st;
        if (!strcmp(v, "0") || !strcasecmp(v, "off")) {
            sb_printf(log, "error: '%.200s': no ptxas is --no-ptxas\n", o);
            return -1;
        }
        if (stat(v, &st) != 0 || !S_ISREG(st.st_mode) || access(v, X_OK) != 0) {
            sb_printf(log, "error: '%.200s': not an executable file (%s)\n", o,
                      stat(v, &st) != 0 ? strerror(errno) : S_ISREG(st.st_mode) ? "not executable" : "not a file");
            return -1;
        }
        *given |= GIVEN_PTXAS;
        return set_string(&s->ptxas, v) ? -2 : 0;
    } else if ((v = value_of(o, "--stage")) || (v = value_of(o, "--preround"))) {
        int stage = o[2] == 's';
        if (!parse_switch(v, stage ? &s->stage : &s->preround)) {
            sb_printf(log, "error: '%.200s': the value is never, auto or always\n", o);
            return -1;
        }
        *given |= stage ? GIVEN_STAGE : GIVEN_PREROUND;
    } else if (!strcmp(o, "--jit-tma-only") || !strcmp(o, "--no-jit-tma-only")) {
        s->jit_tma_only = o[2] == 'j';
        *given |= GIVEN_TMA_ONLY;
    } else if ((v = value_of(o, "--persist-blocks")) || (v = value_of(o, "--tune-jobs"))) {
        int persist = o[2] == 'p';
        if (!parse_count(v, persist ? 65535 : 1024, &n)) {
            sb_printf(log, "error: '%.200s': the value is a number from 0 (%s) to %u\n", o,
                      persist ? "no cap" : "one per CPU", persist ? 65535 : 1024);
            return -1;
        }
        *(persist ? &s->persist_blocks : &s->tune_jobs) = n;
        *given |= persist ? GIVEN_PERSIST : GIVEN_JOBS;
    } else if (!strcmp(o, "--tune-verbose") || !strcmp(o, "--no-tune-verbose")) {
        s->tune_verbose = o[2] == 't';
        *given |= GIVEN_VERBOSE;
    } else {
        sb_printf(log, "error: unknown runtime option '%.200s'%s\n", o, unknown_hint(o));
        return -1;
    }
    return 0;
}

int tc_settings_init(TcSettings *s, int nopts, const char *const *opts, StrBuf *log, int *oom)
{
    *s = (TcSettings){.cache = 1, .stage = TC_SWITCH_AUTO, .preround = TC_SWITCH_AUTO, .jit_tma_only = 1};
    *oom = 0;
    unsigned given = 0;
    int bad = 0;
    for (int i = 0; i < nopts && !*oom; i++) {
        int r = -1;
        if (opts[i])
            r = apply_option(s, &given, opts[i], log);
        else
            sb_printf(log, "error: option %d is NULL\n", i);
        if (r == -2)
            *oom = 1;
        bad |= r != 0;
    }
    if (!*oom && !bad)
        from_env(s, given, log, oom);
    if (*oom || bad) {
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
