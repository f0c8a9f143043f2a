/*
 * Fuzz target: the embedding API's option parsing (tilecCompileProgram).
 *
 * The input is a list of option strings separated by newlines (a NUL byte
 * inside a line ends that option early, as it would in C). Most inputs are
 * compiled against a source with a syntax error, so the compile stops right
 * after the options were parsed and canonicalized; one input in eight gets
 * a tiny valid kernel instead and goes through the whole pipeline, so that
 * every option also reaches the stage that reads it. Invariants: an option
 * error comes with a log, a success with PTX, and the log is always there.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tilec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_OPTS = 64 };

static const char VALID[] = "kernel @k(%x: ptr<f32>) warps(1) {\n"
                            "  %v = view %x [1, 32] strides [32, 1]\n"
                            "  %t = load %v[0, 0] : tile<1x32xf32>\n"
                            "  %z = zeros : tile<32x32xf32>\n"
                            "  store %t, %v[0, 0]\n"
                            "}\n";
static const char BROKEN[] = "kernel @k( {\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *buf = malloc(size + 1);
    const char *opts[MAX_OPTS];
    int n = 0;
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = 0;
    int valid = size && (data[0] & 7) == 0;
    for (char *s = buf + (size ? 1 : 0); n < MAX_OPTS && s <= buf + size;) {
        char *nl = memchr(s, '\n', (size_t)(buf + size - s));
        if (nl)
            *nl = 0;
        opts[n++] = s;
        if (!nl)
            break;
        s = nl + 1;
    }
    tilecProgram p = NULL;
    const char *src = valid ? VALID : BROKEN;
    if (tilecCreateProgram(&p, src, strlen(src), "fuzz.tir") != TILEC_SUCCESS)
        abort();
    tilecResult r = tilecCompileProgram(p, n, opts);
    const char *log = NULL, *ptx = NULL;
    if (tilecGetProgramLog(p, &log) != TILEC_SUCCESS || !log)
        abort();
    if (r == TILEC_ERROR_INVALID_OPTION && !strstr(log, "error"))
        abort(); /* an option error must say what was wrong */
    if (r == TILEC_SUCCESS && (tilecGetPTX(p, &ptx, NULL) != TILEC_SUCCESS || !ptx || !strstr(ptx, ".entry")))
        abort();
    if (r != TILEC_SUCCESS && r != TILEC_ERROR_INVALID_OPTION && r != TILEC_ERROR_COMPILATION)
        abort();
    if (!valid && r == TILEC_SUCCESS)
        abort();
    const char *text;
    for (int s = TILEC_STAGE_TIR_INPUT; s <= TILEC_STAGE_PTX; s++)
        (void)tilecGetStage(p, (tilecStage)s, &text);
    tilecDestroyProgram(&p);
    free(buf);
    return 0;
}
