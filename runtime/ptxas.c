/* An external ptxas, run as a child process (runtime/ptxas.h). */
#include "runtime/ptxas.h"

#include "compiler/compiler.h" /* tc_now_ms */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

enum { PTXAS_MAX_THREADS = 8 }; /* --split-compile: at most one thread per entry point, and this many */

static atomic_uint timeout_ms = 600000;

void ptxas_set_timeout_ms(unsigned ms) { atomic_store(&timeout_ms, ms ? ms : 1); }


const char *ptxas_path(void)
{
    const char *p = getenv("TILEC_PTXAS");
    if (p && (!strcmp(p, "0") || !strcmp(p, "off")))
        return NULL;
    if (p && p[0])
        return p;
    static const char toolkit[] = "/usr/local/cuda/bin/ptxas";
    return access(toolkit, X_OK) == 0 ? toolkit : NULL;
}

/* The target of `.target sm_90a, debug` -> "sm_90a" (at most n - 1 chars). */
static int ptx_target(const char *ptx, size_t len, char *out, size_t n)
{
    const char *t = memmem(ptx, len, ".target", 7);
    if (!t)
        return 0;
    t += 7;
    while (*t == ' ' || *t == '\t')
        t++;
    size_t k = 0;
    while (k + 1 < n && (t[k] == '_' || (t[k] >= 'a' && t[k] <= 'z') || (t[k] >= '0' && t[k] <= '9')))
        k++;
    memcpy(out, t, k);
    out[k] = 0;
    return k > 3 && !strncmp(out, "sm_", 3);
}

static int write_file(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    int ok = fwrite(data, 1, len, f) == len;
    return fclose(f) == 0 && ok;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) != NULL) {
        if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        } else {
            buf[n] = 0;
            *len = (size_t)n;
        }
    }
    fclose(f);
    return buf;
}

/* The entry points in the PTX (".entry" directives), at most cap. */
static unsigned count_entries(const char *ptx, size_t len, unsigned cap)
{
    unsigned n = 0;
    for (const char *p = ptx, *end = ptx + len; n < cap && (p = memmem(p, (size_t)(end - p), ".entry ", 7)); p += 7)
        n++;
    return n;
}

/* Runs ptxas with argv, its messages into msgs; its exit status (-1: not run, or killed). */
static int run(const char *ptxas, char *const argv[], const char *msgs, StrBuf *log)
{
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0) {
        sb_puts(log, "ptxas: posix_spawn_file_actions_init failed\n");
        return -1;
    }
    posix_spawn_file_actions_addopen(&fa, 1, msgs, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid;
    int e = posix_spawn(&pid, ptxas, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (e != 0) {
        sb_printf(log, "ptxas: cannot run %s: %s\n", ptxas, strerror(e));
        return -1;
    }
    /* polled, so that a ptxas that hangs is stopped (a failure: the driver's JIT takes over) */
    int status = 0;
    pid_t w;
    unsigned limit = atomic_load(&timeout_ms);
    double t0 = tc_now_ms();
    struct timespec nap = {0, 100000}; /* 0.1 ms, doubling to 2 ms: what a JIT's ptxas (~100 ms) can lose */
    while ((w = waitpid(pid, &status, WNOHANG)) == 0 || (w < 0 && errno == EINTR)) {
        if (tc_now_ms() - t0 > limit) {
            kill(pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
            sb_printf(log, "ptxas: no result after %.1f s: stopped\n", limit / 1e3);
            return -1;
        }
        nanosleep(&nap, NULL);
        nap.tv_nsec = nap.tv_nsec * 2 < 2000000 ? nap.tv_nsec * 2 : 2000000;
    }
    if (w < 0) { /* (a host that ignores SIGCHLD reaps its children itself: ECHILD) the exit unknown, so
                  * nothing ptxas left is trusted, and the driver's JIT takes over */
        sb_printf(log, "ptxas: its exit status is unknown (waitpid: %s)\n", strerror(errno));
        return -1;
    }
    if (WIFSIGNALED(status))
        sb_printf(log, "ptxas: killed by signal %d\n", WTERMSIG(status));
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

tilecResult ptxas_compile(const char *ptxas, const char *ptx, size_t len, int cc_major, int cc_minor, void **cubin,
                          size_t *cubin_len, StrBuf *log)
{
    *cubin = NULL;
    *cubin_len = 0;
    enum { PATH = 1024 }; /* (on the caller's stack: a longer $TMPDIR falls back to /tmp) */
    char arch[32], dir[PATH], in[PATH + 16], out[PATH + 16], msgs[PATH + 16], archopt[48], split[32];
    const char *tmp = getenv("TMPDIR"); /* (as ptxas itself, and mkstemp's callers, take it) */
    if (!tmp || !tmp[0] || strlen(tmp) > PATH - 32)
        tmp = "/tmp";
    snprintf(dir, sizeof dir, "%s/tilec-ptxas-XXXXXX", tmp);
    if (!ptx_target(ptx, len, arch, sizeof arch)) {
        sb_puts(log, "ptxas: the PTX names no .target\n");
        return TILEC_ERROR_JIT;
    }
    if (!mkdtemp(dir)) {
        sb_printf(log, "ptxas: cannot make a temporary directory: %s\n", strerror(errno));
        return TILEC_ERROR_JIT;
    }
    snprintf(in, sizeof in, "%s/k.ptx", dir);
    snprintf(out, sizeof out, "%s/k.cubin", dir);
    snprintf(msgs, sizeof msgs, "%s/log", dir);
    size_t al = strlen(arch);
    snprintf(archopt, sizeof archopt, "-arch=sm_%d%d%s", cc_major, cc_minor, arch[al - 1] == 'a' ? "a" : "");
    /* several entry points (compiler/entries.c): ptxas optimizes them on threads at once, the
     * same SASS (bench/NOTES.md v18); a ptxas without the option (before CUDA 12.x) runs again
     * without it */
    unsigned entries = count_entries(ptx, len, PTXAS_MAX_THREADS);
    snprintf(split, sizeof split, "--split-compile=%u", entries);
    tilecResult t = TILEC_ERROR_JIT;
    char *m = NULL;
    if (!write_file(in, ptx, len)) {
        sb_printf(log, "ptxas: cannot write %s\n", in);
        goto out;
    }
    char *argv[] = {(char *)ptxas, archopt, "-O3", in, "-o", out, entries > 1 ? split : NULL, NULL};
    int rc = run(ptxas, argv, msgs, log);
    size_t mlen = 0;
    m = read_file(msgs, &mlen);
    if (rc != 0 && argv[6] && m && strstr(m, "split-compile")) {
        argv[6] = NULL;
        rc = run(ptxas, argv, msgs, log);
        free(m);
        m = read_file(msgs, &mlen);
    }
    if (rc != 0) {
        if (rc > 0 || (m && m[0]))
            sb_printf(log, "ptxas (%s %s) failed:\n%s", ptxas, archopt, m && m[0] ? m : "(no output)\n");
        goto out;
    }
    *cubin = read_file(out, cubin_len);
    if (!*cubin)
        sb_printf(log, "ptxas: cannot read %s\n", out);
    else
        t = TILEC_SUCCESS;
out:
    free(m);
    unlink(in);
    unlink(out);
    unlink(msgs);
    rmdir(dir);
    return t;
}
