/*
 * tilec: compile a .tir tile kernel to PTX (or show the tile IR / LLVM IR).
 * Exit status: 0 success, 1 a diagnosed error in the input, 2 bad usage.
 */
#include "compiler/compiler.h"
#include "tilec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static const char usage[] =
    "usage: tilec [options] FILE|-\n"
    "Compiles a .tir tile kernel to PTX through LLVM.\n"
    "\n"
    "options:\n"
    "  -o FILE              write the output to FILE (default, or -: standard output)\n"
    "  --arch=sm_80|sm_90a  target GPU (default sm_90a)\n"
    "  --emit=tir|tir-input|llvm|ptx\n"
    "                       what to write: tile IR after the passes, tile IR as\n"
    "                       parsed (these two lower nothing, so a kernel that\n"
    "                       fails to lower can still be read), optimized LLVM IR\n"
    "                       (one module per PTX entry\n"
    "                       point, each headed by a '; ----- tilec:' line where\n"
    "                       there are several), or PTX (default ptx)\n"
    "  --precision=ieee|tf32-trunc|tf32-rna|tf32-rne|3xtf32\n"
    "                       fp32 dot precision where a dot has no attribute\n"
    "                       (default tf32-rna)\n"
    "  -O0 .. -O3           LLVM optimization level (default -O3; at -O0 the wgmma\n"
    "                       pipelines wait for every group at once: slower, for\n"
    "                       reading the IR; -fno-wgmma-serial keeps their -O3 form,\n"
    "                       whose -O0 PTX reads accumulators in flight: not valid;\n"
    "                       -fwgmma-serial waits so at any level)\n"
    "  --dump-after=all|PASS[,PASS...]\n"
    "                       print the tile IR after those passes (parse, wgmma,\n"
    "                       mma, precision, prefetch; repeated, the lists add up) to\n"
    "                       standard error\n"
    "  -g, -g0              .loc line information in the PTX (default), or none\n"
    "  -fprefetch           issue loop loads one iteration ahead (pass_prefetch)\n"
    "  -fno-wgmma           sm_90a: no warp-specialized wgmma pipeline for GEMM\n"
    "                       loops (they take the mma.sync pipeline)\n"
    "  -fno-mma-pipeline    no cp.async + mma.sync pipeline for the GEMM loops no\n"
    "                       wgmma pipeline takes (sm_80's all): the generic\n"
    "                       lowering, one shared buffer a step\n"
    "  -fwgmma-hoist        experimental, not yet measured, the older pipeline\n"
    "                       (-fno-wgmma-swapped) only: its producers' address\n"
    "                       terms computed once, outside the K loop, and\n"
    "                       unchecked 4-byte copies for tiles inside the matrix\n"
    "                       whose rows are not 16-byte aligned\n"
    "  -fno-wgmma-swapped   sm_90a: the older pipeline (B transposed by the\n"
    "                       producers) instead of the swapped product\n"
    "  -fno-wgmma-unaligned sm_90a: no producer loop of its own for A or B not\n"
    "                       16-byte aligned (odd strides), whose tiles inside the\n"
    "                       matrix it copies without per-element checks; they\n"
    "                       take the checked element path instead (2.7x slower)\n"
    "  -fno-wgmma-roles     sm_90a: two producer warpgroups each copy and round\n"
    "                       every other step (default: one copies every step,\n"
    "                       the other rounds every step)\n"
    "  -fwgmma-round-b      experimental: B rounded in place by the rounding\n"
    "                       warpgroup (tf32-rna/rne), not by the consumers\n"
    "                       (measured ~10% slower at 128x256)\n"
    "  -fno-wgmma-split-stage  sm_90a: a stage's wgmmas in one group (default:\n"
    "                       two, the second's operands loaded while the first\n"
    "                       runs, where a stage has 8 wgmmas or more)\n"
    "  -fno-wgmma-k-overlap sm_90a: the consumers wait for a stage's wgmmas at its\n"
    "                       end (default: a wgmma group per two k8 steps, each\n"
    "                       waiting only for the group before, so its operands\n"
    "                       load while the group before runs; tf32 modes, BM up\n"
    "                       to 128)\n"
    "  -fno-wgmma-kmajor-b  sm_90a: a tf32 GEMM whose B is K-major (a view with\n"
    "                       strides [1, ldb]: x @ W^T's W) takes the swapped\n"
    "                       product's element copies of B (default: B copied as A\n"
    "                       is, both wgmma operands from shared memory, where BM =\n"
    "                       16 x warps and BN is 16..256; 3xtf32: the swapped\n"
    "                       product with B copied as A is, its fragments read from\n"
    "                       there; ieee: element copies always; f16/bf16: B's rows\n"
    "                       copied as A's, no transpose bit, where it is off:\n"
    "                       element copies)\n"
    "  -fno-wgmma-mmajor-a  sm_90a: a GEMM whose A is M-major (a view with strides\n"
    "                       [1, lda]: A^T @ B's A) copies A element by element\n"
    "                       (default: A^T copied as a row-major B is; f16/bf16\n"
    "                       read it with wgmma's transpose bit for A, 5.7-12x\n"
    "                       faster; f32's producers transpose it in shared memory)\n"
    "  -fno-wgmma-ffma      sm_90a: ieee dots take the generic lowering (default:\n"
    "                       the pipeline, its consumers computing with fp32 FMAs\n"
    "                       from shared memory, where a consumer thread holds at\n"
    "                       most 64 elements of the tile)\n"
    "  -fno-wgmma-half      sm_90a: f16/bf16 dots take the generic lowering\n"
    "                       (default: the pipeline with both wgmma operands in\n"
    "                       shared memory, for a K step of 64, BM = 16 x warps,\n"
    "                       BN 64, 128 or 256)\n"
    "  -fwgmma-half-two-producers  experimental: two producer warpgroups for\n"
    "                       f16/bf16 (not at 128x256 with 8 warps; +40% at odd\n"
    "                       strides, -3% aligned at 128x128 on the H200; its\n"
    "                       gpu_test_gemm run has not reached the f16/bf16 cases)\n"
    "  -fno-wgmma-tma       sm_90a: no TMA copies and no tensor-map parameters (a\n"
    "                       persistent kernel still takes its grid in three: add\n"
    "                       -fno-persistent for none) (default:\n"
    "                       the pipelines copy A and B with TMA through tensor\n"
    "                       maps in hidden kernel parameters after the declared\n"
    "                       ones: docs/TIR.md; tilecLaunch passes them; zero maps\n"
    "                       and flags are safe; tf32-rne's maps round (TFLOAT32),\n"
    "                       so nothing else does: 1.2-1.4x at 128x256)\n"
    "  -fno-wgmma-tma-b128  with TMA: f32 B as 8-column panels (one box of\n"
    "                       32-byte rows: slower than no TMA) instead of 128-byte\n"
    "                       swizzled 32-column panels\n"
    "  -fwgmma-tma-direct   experimental (passes gpu_test_gemm; mixed timings): with\n"
    "                       TMA, tf32-trunc/rne's consumers (and tf32-rna's where\n"
    "                       A and B come rounded) wait on the copies' barriers\n"
    "                       directly, not through the rounding warpgroup (nothing\n"
    "                       to round); persistent kernels only with -fwgmma-tma-only\n"
    "  -fwgmma-cluster      experimental (as fast as without on the H200; its GPU\n"
    "                       tests pass on an H100): with\n"
    "                       -fwgmma-tma-only, blocks in clusters of two that share\n"
    "                       B's copies (TMA multicast) where their programs take the\n"
    "                       same columns (persistent: programs 2j and 2j+1, compared\n"
    "                       at run time; else 2i and 2i+1 along x); docs/TIR.md\n"
    "  -fwgmma-ffma-wide    experimental (slower than 8 x 8 on the H200): ieee's FMA\n"
    "                       consumers also take 8 x 16 elements a thread where 8 x 8\n"
    "                       cannot cover the tile (256x128, 128x256 with 8 warps)\n"
    "  -fwgmma-one-producer experimental (~25% slower than two on an H100): the f32\n"
    "                       pipeline\n"
    "                       with one producer warpgroup (384 threads at 8 warps)\n"
    "                       where it would take two\n"
    "  -fno-wgmma-x3-one-group  3xtf32's consumers issue a stage's wgmmas as two\n"
    "                       groups, each waited for (default: one group, one wait;\n"
    "                       1-4% faster on the H200)\n"
    "  -fwgmma-x3-halves    experimental (2-4% slower on an H100): 3xtf32's wgmmas\n"
    "                       as two independent chains, each on half of a\n"
    "                       warpgroup's accumulators (m64n{BM/2}), in turns\n"
    "  -fwgmma-x3-sum2      experimental (2-8% slower on an H100): 3xtf32's part\n"
    "                       sums over two steps of 32 (one RN add into the\n"
    "                       accumulators every second step; error 1.35-1.55x)\n"
    "  -fno-wgmma-unmasked-rounding  the pipelines' RNA rounding (tf32-rna, 3xtf32)\n"
    "                       clears the low 13 bits of copies only the tensor\n"
    "                       cores read (default: left, the tensor cores drop\n"
    "                       them; the same products, an instruction less each,\n"
    "                       and 3xtf32's hic no copy of big: +1-3% on an H100)\n"
    "  -fwgmma-x3-rest-test experimental (3-7% slower on an H100): 3xtf32's split\n"
    "                       takes its short path where the sum of the rests x -\n"
    "                       big is finite (one add each, a tree), not by a\n"
    "                       compare each; the same bits\n"
    "  -fno-wgmma-ffma-transpose-b  ieee with a K-major B: the FMA consumers read\n"
    "                       B^T's rows as copied (default: the producers transpose\n"
    "                       them in shared memory into a row-major B's panels)\n"
    "  -fwgmma-tma-only     with TMA, no copies of the kernel's own where every\n"
    "                       program's boxes are provably aligned; a launch must pass\n"
    "                       every map but an optional one (the runtime stages views\n"
    "                       no map describes; the kernel traps without them);\n"
    "                       compiles in about two\n"
    "                       thirds of the time; the JIT's default (docs/TIR.md)\n"
    "  -fwgmma-tma-store    the f32 pipeline's result stored by TMA through a third\n"
    "                       tensor map (C's view), in bands of rows through shared\n"
    "                       memory; the kernel's own stores where that map is not\n"
    "                       encoded (with -fwgmma-tma-only: none, the map required,\n"
    "                       where the store's first column is proven a multiple\n"
    "                       of 4; else the map optional);\n"
    "                       ptxas a quarter faster; the JIT's default (docs/TIR.md)\n"
    "  -fwgmma-tma-store-two-buffers  experimental: the store's bands as tall as two\n"
    "                       buffers fit (one written while the TMA reads the other),\n"
    "                       not the tallest band one buffer fits\n"
    "  -fno-wgmma-preround-a  experimental: a tf32-rna launch that pre-rounds copies\n"
    "                       only B rounded; A is rounded in shared memory by both\n"
    "                       entries' rounding warpgroup (docs/TIR.md)\n"
    "  -fno-wgmma-preround-b  experimental (slower on an H100): a tf32-rna launch that\n"
    "                       pre-rounds copies only A rounded; B is rounded in the\n"
    "                       consumers' registers by both entries (docs/TIR.md)\n"
    "  -fpersistent         every kernel persistent: as many blocks as the GPU runs\n"
    "                       at once, each taking the grid's programs in turn (three\n"
    "                       hidden grid parameters; default: kernels with the f32\n"
    "                       wgmma pipeline, whose producers then copy the next\n"
    "                       program's stages while the consumers store C)\n"
    "  -fno-persistent      no kernel persistent: one program per block\n"
    "  -fno-role-functions  a persistent pipeline compiled whole; by default its\n"
    "                       producers are compiled apart, on a thread beside the\n"
    "                       rest, their PTX then put into the kernel (still one\n"
    "                       kernel, no call; the same speed on an H100, -40%\n"
    "                       compile time on 16 CPUs where the kernel has copies\n"
    "                       of its own)\n"
    "  -DNAME=VALUE         define $NAME (or ${NAME}) in the source as the integer\n"
    "                       VALUE, e.g. tile<${BM}x32xf32> with -DBM=128 (a name\n"
    "                       given twice takes its last value)\n"
    "  --stages=N           pipeline stages (wgmma, mma.sync), 2..8 (default: as many as\n"
    "                       fit in shared memory, at most 4; 6 for f16/bf16)\n"
    "  --jobs=N             compile up to N entry points at once, on threads (default\n"
    "                       0: one per CPU, at most 8); the output is the same\n"
    "  --no-verify          skip the IR verifier between passes\n"
    "  --time               print the time of each stage to standard error (lower,\n"
    "                       optimize, codegen: summed over the entry points), then\n"
    "                       each unit's (an entry point or its producers, compiled\n"
    "                       on a thread of its own: the longest bounds the whole)\n"
    "  --remarks            say on standard error which wgmma pipeline each kernel's\n"
    "                       GEMM loop took (precision, stages), or why it stays with\n"
    "                       the generic lowering\n"
    "  -h, --help, --version\n";

static char *read_all(FILE *f, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    for (;;) {
        if (n == cap) {
            if (cap >= ((size_t)1 << 30)) { /* 1 GiB: not a kernel */
                free(buf);
                errno = EFBIG;
                return NULL;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                return NULL;
            }
            buf = nb;
            cap *= 2;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0) {
            if (ferror(f)) {
                free(buf);
                return NULL;
            }
            break;
        }
    }
    *len = n;
    return buf;
}

int main(int argc, char **argv)
{
    TcOptions opts;
    tc_options_default(&opts);
    const char *input = NULL, *output = NULL, *emit = "ptx";
    int show_time = 0;
    StrBuf err;
    sb_init(&err);

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(a, "--version")) {
            printf("%s\n", tilecVersion());
            return 0;
        } else if (!strcmp(a, "-o")) {
            if (++i == argc) {
                fprintf(stderr, "tilec: error: -o needs a file name\n%s", "try 'tilec --help'\n");
                return 2;
            }
            output = argv[i];
        } else if (!strncmp(a, "--emit=", 7)) {
            emit = a + 7;
            if (strcmp(emit, "tir") && strcmp(emit, "tir-input") && strcmp(emit, "llvm") && strcmp(emit, "ptx")) {
                fprintf(stderr, "tilec: error: unknown --emit value '%s'; use tir, tir-input, llvm or ptx\n", emit);
                return 2;
            }
        } else if (!strcmp(a, "--time")) {
            show_time = 1;
        } else if (a[0] == '-' && a[1] != 0) {
            if (tc_option_parse(&opts, a, &err) != 0) {
                fprintf(stderr, "tilec: %stry 'tilec --help'\n", err.data);
                sb_free(&err);
                return 2;
            }
        } else if (input) {
            fprintf(stderr, "tilec: error: more than one input file ('%s' and '%s')\n", input, a);
            return 2;
        } else {
            input = a;
        }
    }
    opts.keep_llvm_ir = !strcmp(emit, "llvm"); /* printing it costs as much as a pass */
    /* the tile IR asked for: nothing after its stage runs (a kernel that does
     * not lower can still be read) */
    opts.stop_after = !strcmp(emit, "tir-input") ? TC_STOP_PARSE : !strcmp(emit, "tir") ? TC_STOP_PASSES : 0;
    if (!input) {
        fprintf(stderr, "tilec: error: no input file\n%s", usage);
        return 2;
    }

    int from_stdin = !strcmp(input, "-");
    FILE *in = from_stdin ? stdin : fopen(input, "rb");
    if (!in) {
        fprintf(stderr, "tilec: error: cannot open '%s': %s\n", input, strerror(errno));
        return 1;
    }
    size_t len = 0;
    char *src = read_all(in, &len);
    int read_errno = errno;
    if (!from_stdin)
        fclose(in);
    if (!src) {
        fprintf(stderr, "tilec: error: cannot read '%s': %s\n", input, strerror(read_errno));
        return 1;
    }

    TcResult res;
    StrBuf log;
    sb_init(&log);
    int rc = tc_compile(from_stdin ? "<stdin>" : input, src, len, &opts, &res, &log);
    free(src);
    if (log.len)
        fputs(log.data, stderr);
    if (opts.dump_after && res.tir_passes)
        fputs(res.tir_passes, stderr);
    if (opts.stop_after == TC_STOP_PARSE && ((opts.dump_after & ~tc_pass_bit("parse", 5)) || opts.remarks))
        fputs("tilec: note: --emit=tir-input stops after parsing: no pass runs, so no pass's tile IR or remark is "
              "printed\n", stderr);
    /* --dump-after=prefetch named, not through all */
    if ((opts.dump_after & tc_pass_bit("prefetch", 8)) && opts.dump_after != ~0u && !opts.prefetch)
        fputs("tilec: note: --dump-after=prefetch prints nothing: the prefetch pass runs with -fprefetch only\n",
              stderr);
    if (show_time)
        fprintf(stderr,
                "tilec: parse %.3f ms, passes %.3f ms, %u entry point%s on %u thread%s %.3f ms (lower %.3f ms, "
                "optimize %.3f ms, codegen %.3f ms, summed over the entry points)%s\n",
                res.ms_parse, res.ms_passes, res.nentries, res.nentries == 1 ? "" : "s", res.threads,
                res.threads == 1 ? "" : "s", res.ms_entries, res.ms_lower, res.ms_opt, res.ms_codegen,
                rc ? "; the compile failed: a stage it did not reach shows 0" : "");
    if (show_time && res.unit_times && res.nentries) /* each unit compiled on its own, on its thread */
        for (const char *u = res.unit_times; *u;) {
            size_t n = strcspn(u, "\n");
            fprintf(stderr, "tilec:   %.*s\n", (int)n, u);
            u += n + (u[n] == '\n');
        }

    int status = 0;
    const char *text = NULL;
    if (rc == 0) {
        if (!strcmp(emit, "tir"))
            text = res.tir;
        else if (!strcmp(emit, "tir-input"))
            text = res.tir_input;
        else if (!strcmp(emit, "llvm"))
            text = res.llvm_ir;
        else
            text = res.ptx;
        if (output && !strcmp(output, "-")) /* -o -: standard output, as an input of - is standard input */
            output = NULL;
        FILE *out = output ? fopen(output, "wb") : stdout;
        if (!out) {
            fprintf(stderr, "tilec: error: cannot write '%s': %s\n", output, strerror(errno));
            status = 1;
        } else {
            size_t n = text ? strlen(text) : 0;
            if (fwrite(text ? text : "", 1, n, out) != n || (output ? fclose(out) : fflush(out)) != 0) {
                fprintf(stderr, "tilec: error: writing '%s' failed: %s\n", output ? output : "<stdout>",
                        strerror(errno));
                status = 1;
            }
        }
    } else {
        status = 1;
    }
    tc_result_free(&res);
    sb_free(&log);
    sb_free(&err);
    return status;
}
