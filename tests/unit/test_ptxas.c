/*
 * runtime/ptxas.c: which ptxas the runtime picks (TILEC_PTXAS, the
 * toolkit's default, off), and running it: a cubin for the device's compute
 * capability from good PTX (an ELF image), TILEC_ERROR_JIT with ptxas's own
 * message from bad PTX, no temporary files left behind; PTX with several
 * entry points compiled with --split-compile, and again without it by a
 * ptxas that does not know the option; a ptxas that fails is a failure
 * even where the host ignores SIGCHLD (its exit status then unknown), and
 * one that hangs is stopped.
 * Without an installed ptxas only the cases with scripts for ptxas run: the
 * test then reports itself skipped (77).
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "runtime/ptxas.h"

static const char good[] = ".version 8.0\n.target sm_90a\n.address_size 64\n"
                           ".visible .entry k(.param .u64 p)\n{\n\t.reg .b64 %rd<2>;\n"
                           "\tld.param.u64 %rd1, [p];\n\tret;\n}\n";

static int temp_dirs(void)
{
    int n = 0;
    DIR *d = opendir("/tmp");
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        n += strncmp(e->d_name, "tilec-ptxas-", 12) == 0;
    if (d)
        closedir(d);
    return n;
}

START_TEST(picks_the_ptxas)
{
    setenv("TILEC_PTXAS", "off", 1);
    ck_assert_ptr_null(ptxas_path());
    setenv("TILEC_PTXAS", "0", 1);
    ck_assert_ptr_null(ptxas_path());
    setenv("TILEC_PTXAS", "/opt/x/ptxas", 1);
    ck_assert_str_eq(ptxas_path(), "/opt/x/ptxas");
    unsetenv("TILEC_PTXAS");
    const char *p = ptxas_path();
    if (access("/usr/local/cuda/bin/ptxas", X_OK) == 0)
        ck_assert_str_eq(p, "/usr/local/cuda/bin/ptxas");
    else
        ck_assert_ptr_null(p);
}
END_TEST

START_TEST(compiles_and_fails_cleanly)
{
    unsetenv("TILEC_PTXAS");
    const char *ptxas = ptxas_path();
    ck_assert_ptr_nonnull(ptxas); /* main() runs this case only with one */
    int before = temp_dirs();
    StrBuf log;
    sb_init(&log);
    void *cubin = NULL;
    size_t len = 0;
    ck_assert_int_eq(ptxas_compile(ptxas, good, strlen(good), 9, 0, &cubin, &len, &log), TILEC_SUCCESS);
    ck_assert_uint_gt(len, 4);
    ck_assert_mem_eq(cubin, "\x7f" "ELF", 4);
    free(cubin);

    /* sm_80 PTX on an sm_90 device: built for sm_90 (an sm_80 cubin would not load there) */
    char old[sizeof good];
    memcpy(old, good, sizeof good);
    memcpy(strstr(old, "sm_90a"), "sm_80 ", 6);
    ck_assert_int_eq(ptxas_compile(ptxas, old, strlen(old), 9, 0, &cubin, &len, &log), TILEC_SUCCESS);
    ck_assert_mem_eq(cubin, "\x7f" "ELF", 4);
    free(cubin);

    /* an sm_90a kernel cannot be built for an sm_80 device: ptxas says why */
    ck_assert_int_eq(ptxas_compile(ptxas, good, strlen(good), 8, 0, &cubin, &len, &log), TILEC_ERROR_JIT);
    ck_assert_ptr_null(cubin);
    ck_assert_ptr_nonnull(strstr(log.data, "ptxas"));
    ck_assert_ptr_nonnull(strstr(log.data, "sm_80a"));

    static const char bad[] = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k() { bogus; }\n";
    sb_free(&log);
    sb_init(&log);
    ck_assert_int_eq(ptxas_compile(ptxas, bad, strlen(bad), 9, 0, &cubin, &len, &log), TILEC_ERROR_JIT);
    ck_assert_ptr_nonnull(strstr(log.data, "failed"));

    static const char untargeted[] = ".version 8.0\n";
    sb_free(&log);
    sb_init(&log);
    ck_assert_int_eq(ptxas_compile(ptxas, untargeted, strlen(untargeted), 9, 0, &cubin, &len, &log),
                     TILEC_ERROR_JIT);
    ck_assert_ptr_nonnull(strstr(log.data, ".target"));

    ck_assert_int_eq(ptxas_compile("/nonexistent/ptxas", good, strlen(good), 9, 0, &cubin, &len, &log),
                     TILEC_ERROR_JIT);
    ck_assert_ptr_nonnull(strstr(log.data, "/nonexistent/ptxas"));
    sb_free(&log);
    ck_assert_int_eq(temp_dirs(), before);
}
END_TEST

/* The file of arguments the fake ptxas wrote holds n runs, run i with
 * split[i] among its arguments (NULL: no --split-compile); removed after. */
static void check_runs(const char *args, const char *const *split, int n)
{
    char line[512];
    FILE *f = fopen(args, "r");
    ck_assert_ptr_nonnull(f);
    for (int i = 0; i < n; i++) {
        ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
        if (split[i])
            ck_assert_ptr_nonnull(strstr(line, split[i]));
        else
            ck_assert_ptr_null(strstr(line, "split-compile"));
    }
    ck_assert_ptr_null(fgets(line, sizeof line, f)); /* no more runs */
    fclose(f);
    remove(args);
}

/* Two entries: both in the cubin. A ptxas that refuses --split-compile
 * (as one before CUDA 12.x would; a script in front of the real one that
 * notes its arguments): the same PTX compiles on the second try. */
START_TEST(several_entries)
{
    unsetenv("TILEC_PTXAS");
    const char *ptxas = ptxas_path();
    ck_assert_ptr_nonnull(ptxas);
    static const char two[] = ".version 8.0\n.target sm_90a\n.address_size 64\n"
                              ".visible .entry first_k()\n{\n\tret;\n}\n"
                              ".visible .entry second_k()\n{\n\tret;\n}\n";
    StrBuf log;
    sb_init(&log);
    void *cubin = NULL;
    size_t len = 0;
    ck_assert_int_eq(ptxas_compile(ptxas, two, strlen(two), 9, 0, &cubin, &len, &log), TILEC_SUCCESS);
    ck_assert_ptr_nonnull(memmem(cubin, len, "first_k", 7));
    ck_assert_ptr_nonnull(memmem(cubin, len, "second_k", 8));
    free(cubin);

    char dir[] = "/tmp/tilec-test-old-ptxas-XXXXXX", script[96], args[96];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(script, sizeof script, "%s/ptxas", dir);
    snprintf(args, sizeof args, "%s/args", dir);
    FILE *f = fopen(script, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "#!/bin/sh\necho \"$*\" >> %s\n"
               "case \"$*\" in *split-compile*) echo \"ptxas fatal   : Unknown option '-split-compile'\"; exit 255;; esac\n"
               "exec %s \"$@\"\n", args, ptxas);
    fclose(f);
    chmod(script, 0700);
    /* the runs the script saw, each line its arguments: the first with the option, the second without */
    static const char *const split_runs[] = {"--split-compile=2", NULL}, *const one_run[] = {NULL};
    ck_assert_int_eq(ptxas_compile(script, two, strlen(two), 9, 0, &cubin, &len, &log), TILEC_SUCCESS);
    free(cubin);
    check_runs(args, split_runs, 2);
    /* one entry: no option, one run */
    ck_assert_int_eq(ptxas_compile(script, good, strlen(good), 9, 0, &cubin, &len, &log), TILEC_SUCCESS);
    free(cubin);
    check_runs(args, one_run, 1);
    remove(script);
    rmdir(dir);
    sb_free(&log);
}
END_TEST

/* A script in place of ptxas at path, body after its #! line. */
static void make_script(const char *path, const char *body)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "#!/bin/sh\n%s", body);
    fclose(f);
    chmod(path, 0700);
}

/* ptxas_compile with that script on good PTX: its result (never a cubin), its log in *log. */
static tilecResult run_script(const char *script, StrBuf *log)
{
    void *cubin = NULL;
    size_t len = 0;
    sb_init(log);
    tilecResult r = ptxas_compile(script, good, strlen(good), 9, 0, &cubin, &len, log);
    ck_assert_ptr_null(cubin);
    return r;
}

/* A ptxas that writes a broken cubin and fails (a script): TILEC_ERROR_JIT
 * with its message; and the same where the host ignores SIGCHLD, so that
 * the child is reaped before waitpid sees its status (ECHILD): a failure
 * too, never the broken cubin as a success (a review's finding, session 30).
 * One killed by a signal says so. Its files go under $TMPDIR where that is
 * set. */
START_TEST(failing_ptxas_fails)
{
    char dir[] = "/tmp/tilec-test-bad-ptxas-XXXXXX", script[96], dying[96], args[96], body[256], line[512];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(script, sizeof script, "%s/ptxas", dir);
    snprintf(dying, sizeof dying, "%s/dying", dir);
    snprintf(args, sizeof args, "%s/args", dir);
    snprintf(body, sizeof body,
             "echo \"$*\" > %s\nwhile [ $# -gt 1 ]; do [ \"$1\" = -o ] && echo broken > \"$2\"; shift; done\n"
             "echo 'ptxas fatal   : the script fails'\nexit 2\n",
             args);
    make_script(script, body);
    make_script(dying, "kill -SEGV $$\n");
    int before = temp_dirs();
    StrBuf log;
    for (int ignore = 0; ignore < 2; ignore++) {
        if (ignore)
            signal(SIGCHLD, SIG_IGN);
        ck_assert_int_eq(run_script(script, &log), TILEC_ERROR_JIT);
        ck_assert_ptr_nonnull(strstr(log.data, ignore ? "exit status is unknown" : "the script fails"));
        sb_free(&log);
    }
    signal(SIGCHLD, SIG_DFL);
    ck_assert_int_eq(run_script(dying, &log), TILEC_ERROR_JIT);
    ck_assert_msg(log.data && strstr(log.data, "killed by signal 11"), "log: %s", log.data ? log.data : "");
    sb_free(&log);
    ck_assert_int_eq(temp_dirs(), before);
    /* its temporary files under $TMPDIR where that is set */
    setenv("TMPDIR", dir, 1);
    ck_assert_int_eq(run_script(script, &log), TILEC_ERROR_JIT);
    unsetenv("TMPDIR");
    sb_free(&log);
    FILE *f = fopen(args, "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    fclose(f);
    char want[128];
    snprintf(want, sizeof want, "%s/tilec-ptxas-", dir);
    ck_assert_msg(strstr(line, want) != NULL, "ptxas ran on '%s', not under $TMPDIR %s", line, dir);
    remove(args);
    remove(script);
    remove(dying);
    ck_assert_int_eq(rmdir(dir), 0); /* (nothing of ptxas's left in it) */
}
END_TEST

/* A ptxas that hangs is stopped after the time allowed (shortened here):
 * TILEC_ERROR_JIT with a note, no temporary files left, in about that time. */
START_TEST(hung_ptxas_is_stopped)
{
    char dir[] = "/tmp/tilec-test-hung-ptxas-XXXXXX", script[96];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(script, sizeof script, "%s/ptxas", dir);
    make_script(script, "exec sleep 30\n");
    int before = temp_dirs();
    ptxas_set_timeout_ms(300);
    StrBuf log;
    time_t t0 = time(NULL);
    ck_assert_int_eq(run_script(script, &log), TILEC_ERROR_JIT);
    ck_assert_int_le(time(NULL) - t0, 10);
    ck_assert_ptr_nonnull(strstr(log.data, "no result after 0.3 s"));
    ptxas_set_timeout_ms(600000);
    sb_free(&log);
    ck_assert_int_eq(temp_dirs(), before);
    remove(script);
    rmdir(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ptxas");
    TCase *tc = tcase_create("ptxas");
    tcase_add_test(tc, picks_the_ptxas);
    tcase_add_test(tc, failing_ptxas_fails);
    tcase_add_test(tc, hung_ptxas_is_stopped);
    unsetenv("TILEC_PTXAS");
    int have = ptxas_path() != NULL;
    if (have)
        tcase_add_test(tc, compiles_and_fails_cleanly);
    if (have)
        tcase_add_test(tc, several_entries);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (!failed && !have)
        printf("no ptxas installed: the compile cases were skipped\n");
    return failed ? 1 : have ? 0 : 77;
}
