/*
 * A main() for the fuzz targets without libFuzzer: runs the target's entry
 * point once on every file named on the command line (directories are
 * walked one level deep), so the crash reproducers in tests/fuzz/regressions
 * and the seed corpora replay in the normal test suite, and under the
 * sanitizer build. A target that crashes or aborts fails the test.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    for (size_t r; buf && (r = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += r;
        if (n == cap) {
            uint8_t *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (!buf) {
        fprintf(stderr, "%s: out of memory\n", path);
        return 1;
    }
    /* an exact-size copy, so that reading past the input is caught */
    uint8_t *exact = malloc(n ? n : 1);
    if (!exact) {
        free(buf);
        return 1;
    }
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv)
{
    int failed = 0, files = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) { /* a target without reproducers has no folder */
            printf("%s: %s: none\n", argv[0], argv[i]);
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            failed |= run_file(argv[i]);
            files++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (!d) {
            perror(argv[i]);
            failed = 1;
            continue;
        }
        char **names = NULL;
        size_t nn = 0;
        for (struct dirent *e; (e = readdir(d));) {
            if (e->d_name[0] == '.' || strstr(e->d_name, ".dict") || !strcmp(e->d_name, "README.md"))
                continue;
            char **nb = realloc(names, (nn + 1) * sizeof *names);
            size_t len = strlen(argv[i]) + strlen(e->d_name) + 2;
            char *p = malloc(len);
            if (!nb || !p) {
                free(p);
                failed = 1;
                break;
            }
            names = nb;
            snprintf(p, len, "%s/%s", argv[i], e->d_name);
            names[nn++] = p;
        }
        closedir(d);
        if (nn) /* a stable order for the log */
            qsort(names, nn, sizeof *names, cmp);
        for (size_t k = 0; k < nn; k++) {
            struct stat fs;
            if (stat(names[k], &fs) == 0 && S_ISREG(fs.st_mode)) {
                failed |= run_file(names[k]);
                files++;
            }
            free(names[k]);
        }
        free(names);
    }
    printf("%s: replayed %d input%s\n", argv[0], files, files == 1 ? "" : "s");
    return failed;
}
