#!/usr/bin/env python3
r"""hosttrace: a kernel's lowered LLVM IR run on the host, one GPU thread at a time.

Each thread records what it does: every inline-asm statement with its operands
(wgmma with its fragments and descriptors, TMA copies with their
coordinates, mbarrier operations, checked stores), every load and store to
global or shared memory with its address and value, every barrier. Two builds
of tilec whose traces match on the same kernel, options and launch lower it
to the same effects in the same order: the check for a change to the
lowering that should not change what a kernel does, where no GPU is at hand
(bench/NOTES.md v22). With one build the whole trace is written to a file;
with two, each thread's events are hashed and compared, and the first thread
that differs is traced in full by both to show where.

Not a GPU emulator: an asm statement's results and a load's value are made
up (a hash of the statement, how many times the thread ran it, and the
address), the same for both builds; waits succeed at once; threads do not
see each other. So the traces compare two lowerings; they say nothing of
whether either computes the right product.

    scripts/hosttrace.py --tilec OLD/tilec --tilec NEW/tilec --entry gemm \
        --launch 'args=256,512,96,96,512,512 grid=4 blocks=2' [--launch ...] \
        KERNEL.tir [-- tilec options]

Needs llc-19 (x86 back end) and a C compiler. Exit status 0: the traces are
the same; 1: they differ (the first difference printed); 2: it could not run.
"""
import argparse
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

SMEM_BASE = 0x400000          # shared memory's address: 1024-aligned, below 2^32
GLOBAL_BASE = 0x100000000000  # pointer parameter i points to GLOBAL_BASE * (i + 1)

TYPE_RE = re.compile(r'^(?P<ty>i\d+|half|bfloat|float|double|ptr(?: addrspace\(\d+\))?'
                     r'|<\d+ x (?:i\d+|half|bfloat|float|double|ptr)>)\s+(?P<val>.+)$')


def die(msg):
    print("hosttrace: " + msg, file=sys.stderr)
    sys.exit(2)


def split_top(s, sep=','):
    """s split at the separators that no bracket encloses"""
    out, depth, cur = [], 0, []
    for c in s:
        if c in '([{<':
            depth += 1
        elif c in ')]}>':
            depth -= 1
        if c == sep and depth == 0:
            out.append(''.join(cur).strip())
            cur = []
        else:
            cur.append(c)
    if ''.join(cur).strip():
        out.append(''.join(cur).strip())
    return out


def close_paren(s, i):
    """index of the ')' matching the '(' at s[i]"""
    depth = 0
    for j in range(i, len(s)):
        if s[j] == '(':
            depth += 1
        elif s[j] == ')':
            depth -= 1
            if depth == 0:
                return j
    die("unbalanced parentheses in: " + s[:200])


def type_value(arg):
    arg = re.sub(r'^(.*?)\s+(?:noundef|signext|zeroext|inreg)\s+', r'\1 ', arg)
    m = TYPE_RE.match(arg)
    if not m:
        die("an operand of a type this script does not know: " + arg[:120])
    return m.group('ty'), m.group('val')


def elements(ty):
    """(count, element type) of a vector type, or (0, ty)"""
    m = re.match(r'^<(\d+) x (.+)>$', ty)
    return (int(m.group(1)), m.group(2)) if m else (0, ty)


class Gen:
    """the stubs that replace asm statements, loads and stores"""

    def __init__(self):
        self.defs, self.strings, self.n = [], {}, 0

    def tmp(self):
        self.n += 1
        return '%t' + str(self.n)

    def string(self, text):
        """a constant C string holding text (in LLVM's escaped form)"""
        if text not in self.strings:
            nbytes = len(re.sub(r'\\[0-9A-Fa-f]{2}', 'x', text)) + 1
            name = '@__ht_str%d' % len(self.strings)
            self.strings[text] = (name, nbytes)
        return self.strings[text][0]

    def to_i64(self, body, ty, val):
        """instructions appended to body that widen val to i64s; their names"""
        n, et = elements(ty)
        if n:
            out = []
            for k in range(n):
                e = self.tmp()
                body.append('%s = extractelement %s %s, i32 %d' % (e, ty, val, k))
                out += self.to_i64(body, et, e)
            return out
        t = self.tmp()
        if ty == 'i64':
            return [val]
        if re.match(r'^i\d+$', ty):
            body.append('%s = zext %s %s to i64' % (t, ty, val))
        elif ty == 'float':
            b = self.tmp()
            body.append('%s = bitcast float %s to i32' % (b, val))
            body.append('%s = zext i32 %s to i64' % (t, b))
        elif ty in ('half', 'bfloat'):
            b = self.tmp()
            body.append('%s = bitcast %s %s to i16' % (b, ty, val))
            body.append('%s = zext i16 %s to i64' % (t, b))
        elif ty == 'double':
            body.append('%s = bitcast double %s to i64' % (t, val))
        elif ty.startswith('ptr'):
            body.append('%s = ptrtoint %s %s to i64' % (t, ty, val))
        else:
            die("cannot widen " + ty)
        return [t]

    def from_i64(self, body, ty, val):
        t = self.tmp()
        if ty == 'i64':
            return val
        if re.match(r'^i\d+$', ty):
            body.append('%s = trunc i64 %s to %s' % (t, val, ty))
        elif ty == 'float':
            b = self.tmp()
            body.append('%s = trunc i64 %s to i32' % (b, val))
            body.append('%s = bitcast i32 %s to float' % (t, b))
        elif ty in ('half', 'bfloat'):
            b = self.tmp()
            body.append('%s = trunc i64 %s to i16' % (b, val))
            body.append('%s = bitcast i16 %s to %s' % (t, b, ty))
        elif ty == 'double':
            body.append('%s = bitcast i64 %s to double' % (t, val))
        elif ty.startswith('ptr'):
            body.append('%s = inttoptr i64 %s to %s' % (t, val, ty))
        else:
            die("cannot narrow to " + ty)
        return t

    def made_up(self, body, ty, source, key, first):
        """a value of type ty from source (@__ht_ret or @__ht_mem), items first.."""
        n, et = elements(ty)
        if ty.startswith('{'):
            parts = split_top(ty.strip()[1:-1])
            acc = 'undef'
            for k, p in enumerate(parts):
                v = self.made_up(body, p, source, key, first + k)
                t = self.tmp()
                body.append('%s = insertvalue %s %s, %s %s, %d' % (t, ty, acc, p, v, k))
                acc = t
            return acc
        if n:
            acc = 'undef'
            for k in range(n):
                v = self.made_up(body, et, source, key, first + k)
                t = self.tmp()
                body.append('%s = insertelement %s %s, %s %s, i32 %d' % (t, ty, acc, et, v, k))
                acc = t
            return acc
        r = self.tmp()
        body.append('%s = call i64 %s(%s, i32 %d)' % (r, source, key, first))
        return self.from_i64(body, ty, r)

    def log(self, body, kind, key, words):
        buf = self.tmp()
        body.append('%s = alloca [%d x i64]' % (buf, max(1, len(words))))
        for k, w in enumerate(words):
            p = self.tmp()
            body.append('%s = getelementptr [%d x i64], ptr %s, i32 0, i32 %d' % (p, max(1, len(words)), buf, k))
            body.append('store i64 %s, ptr %s' % (w, p))
        body.append('call void @__ht_%s(%s, i32 %d, ptr %s)' % (kind, key, len(words), buf))

    def asm_stub(self, ret, text, cons, argtypes):
        name = '@__ht_asm%d' % len(self.defs)
        key = 'ptr ' + self.string(text + '|' + cons)
        params = ', '.join('%s %%a%d' % (t, k) for k, t in enumerate(argtypes))
        body = []
        words = []
        for k, t in enumerate(argtypes):
            words += self.to_i64(body, t, '%%a%d' % k)
        self.log(body, 'asm', key, words)
        if ret == 'void':
            body.append('ret void')
        else:
            body.append('ret %s %s' % (ret, self.made_up(body, ret, '@__ht_ret', key, 0)))
        self.defs.append('define internal %s %s(%s) {\n  %s\n}\n' % (ret, name, params, '\n  '.join(body)))
        return name

    def load_stub(self, ty, pty):
        name = '@__ht_ld%d' % len(self.defs)
        body = []
        a = self.to_i64(body, pty, '%p')[0]
        self.log(body, 'ld', 'ptr ' + self.string('ld ' + ty + ', ' + pty), [a])
        body.append('ret %s %s' % (ty, self.made_up(body, ty, '@__ht_mem', 'i64 ' + a, 0)))
        self.defs.append('define internal %s %s(%s %%p) {\n  %s\n}\n' % (ty, name, pty, '\n  '.join(body)))
        return name

    def store_stub(self, ty, pty):
        name = '@__ht_st%d' % len(self.defs)
        body = []
        words = self.to_i64(body, pty, '%p') + self.to_i64(body, ty, '%v')
        self.log(body, 'st', 'ptr ' + self.string('st ' + ty + ', ' + pty), words)
        body.append('ret void')
        self.defs.append('define internal void %s(%s %%v, %s %%p) {\n  %s\n}\n' % (name, ty, pty, '\n  '.join(body)))
        return name

    def trailer(self):
        out = []
        for text, (name, nbytes) in self.strings.items():
            out.append('%s = private constant [%d x i8] c"%s\\00"' % (name, nbytes, text))
        out += self.defs
        # the f32 -> bf16 conversion that x86 code calls and libgcc before 13 lacks
        out.append('define bfloat @__truncsfbf2(float %x) {\n'  # round to nearest even, NaN quiet
                   '  %u = bitcast float %x to i32\n  %odd = and i32 %u, 65536\n  %h = lshr i32 %odd, 16\n'
                   '  %a = add i32 %u, 32767\n  %b = add i32 %a, %h\n  %r = lshr i32 %b, 16\n'
                   '  %q = lshr i32 %u, 16\n  %qn = or i32 %q, 64\n  %nan = fcmp uno float %x, %x\n'
                   '  %s = select i1 %nan, i32 %qn, i32 %r\n  %t = trunc i32 %s to i16\n'
                   '  %f = bitcast i16 %t to bfloat\n  ret bfloat %f\n}')
        out.append('declare void @__ht_asm(ptr, i32, ptr)')
        out.append('declare void @__ht_ld(ptr, i32, ptr)')
        out.append('declare void @__ht_st(ptr, i32, ptr)')
        out.append('declare i64 @__ht_ret(ptr, i32)')
        out.append('declare i64 @__ht_mem(i64, i32)')
        return '\n'.join(out) + '\n'


ASM_RE = re.compile(r'^(?P<head>.*?)call (?P<ret>.+?) asm (?:(?:sideeffect|alignstack|inteldialect|unwind) )*'
                    r'"(?P<text>[^"]*)", "(?P<cons>[^"]*)"(?P<rest>\(.*)$')
NVVM_RE = re.compile(r'^(?P<head>.*?)call (?P<ret>.+?) @llvm\.nvvm\.(?P<name>[A-Za-z0-9_.]+)(?P<rest>\(.*)$')
LDST_RE = re.compile(r'^(?P<head>\s*(?:%\S+ = )?)(?P<op>load|store) (?:volatile )?(?P<ops>.*)$')


def hidden(module, entry):
    """{parameter index: 'flags' | ('grid', axis)} and the tensor maps' count, from tilec's comments"""
    pre = re.escape('// tilec: %s_param_' % entry)
    roles = {}
    for m in re.finditer(pre + r'(\d+): flags', module):
        roles[int(m.group(1))] = 'flags'
    for m in re.finditer(pre + r'(\d+) \.\. (\d+): the grid of programs', module):
        for k in range(int(m.group(1)), int(m.group(2)) + 1):
            roles[k] = ('grid', k - int(m.group(1)))
    return roles, len(re.findall(pre + r'\d+: tensor map', module))


def hostify(module, entry, gen, roles_from=None):
    """the module's text made into x86-64 IR whose @__ht_run calls the entry
    with its scalar parameters from @__ht_args; the entry's scalar
    parameters: 'flags', ('grid', axis) or None (declared)"""
    out, params = [], None
    roles, maps = hidden(*(roles_from or (module, entry)))
    smem = re.findall(r'^(@\S+) = external addrspace\(3\) global', module, re.M)
    for line in module.split('\n'):
        if line.startswith(('target datalayout', 'target triple', 'module asm', '!nvvm.annotations')):
            continue
        if any(line.startswith(s + ' = external addrspace(3)') for s in smem):
            continue
        for s in smem:
            line = line.replace('ptr addrspace(3) ' + s, 'ptr addrspace(3) inttoptr (i64 %d to ptr addrspace(3))' % SMEM_BASE)
        # thread and block numbers and barriers: the driver's; any other NVVM
        # intrinsic (mma.sync, shfl.sync, ...): traced as an asm statement
        line = re.sub(r'@llvm\.nvvm\.((?:read\.ptx\.sreg|barrier)[A-Za-z0-9_.]*)',
                      lambda m: '@__ht_nvvm_' + m.group(1).replace('.', '_'), line)
        m = NVVM_RE.match(line)
        if m:
            rest = m.group('rest')
            end = close_paren(rest, 0)
            tv = [type_value(a) for a in split_top(rest[1:end])]
            stub = gen.asm_stub(m.group('ret').strip(), 'llvm.nvvm.' + m.group('name'), '', [t for t, _ in tv])
            line = '%scall %s %s(%s)%s' % (m.group('head'), m.group('ret'), stub,
                                          ', '.join('%s %s' % p for p in tv), rest[end + 1:])
        line = line.replace('define ptx_kernel ', 'define ')
        line = re.sub(r', !dbg !\d+', '', line)
        m = ASM_RE.match(line)
        if m:
            rest = m.group('rest')
            end = close_paren(rest, 0)
            ops = split_top(rest[1:end])
            tv = [type_value(a) for a in ops]
            stub = gen.asm_stub(m.group('ret').strip(), m.group('text'), m.group('cons'), [t for t, _ in tv])
            line = '%scall %s %s(%s)%s' % (m.group('head'), m.group('ret'), stub,
                                          ', '.join('%s %s' % p for p in tv), rest[end + 1:])
        else:
            m = LDST_RE.match(line)
            if m and 'addrspace(' in m.group('ops'):
                ops = split_top(m.group('ops'))
                if m.group('op') == 'load':
                    ty, (pty, p) = ops[0], type_value(ops[1])
                    if pty != 'ptr':
                        line = '%scall %s %s(%s %s)' % (m.group('head'), ty, gen.load_stub(ty, pty), pty, p)
                else:
                    (ty, v), (pty, p) = type_value(ops[0]), type_value(ops[1])
                    if pty != 'ptr':
                        line = '%scall void %s(%s %s, %s %s)' % (m.group('head'), gen.store_stub(ty, pty), ty, v, pty, p)
        d = re.match(r'^define (?:\S+ )*void @"?%s"?\((.*)\) .*\{$' % re.escape(entry), line)
        if d:
            params = [a.strip() for a in split_top(d.group(1))]
        out.append(line)
    if params is None:
        die("no entry @%s in the module" % entry)
    # the launch: pointers at GLOBAL_BASE * (i + 1), tensor maps (byval) in buffers, integers from @__ht_args
    body, call, ints = [], [], []
    for k, p in enumerate(params):
        if 'byval' in p:
            size = re.search(r'byval\(\[(\d+) x i8\]\)', p).group(1)
            body.append('%%b%d = alloca [%s x i8], align 64' % (k, size))
            call.append('ptr byval([%s x i8]) align 64 %%b%d' % (size, k))
        elif p.startswith('ptr'):
            call.append('ptr inttoptr (i64 %d to ptr)' % (GLOBAL_BASE * (k + 1)))
        else: # an integer, or a float's bits (f32 in the low 32, f16/bf16 in the low 16)
            ty = p.split()[0]
            body.append('%%g%d = getelementptr [64 x i64], ptr @__ht_args, i32 0, i32 %d' % (k, len(ints)))
            body.append('%%w%d = load i64, ptr %%g%d' % (k, k))
            width = {'float': 32, 'half': 16, 'bfloat': 16, 'double': 64}.get(ty)
            if width:
                body.append('%%u%d = trunc i64 %%w%d to i%d' % (k, k, width) if width < 64 else
                            '%%u%d = add i64 %%w%d, 0' % (k, k))
                body.append('%%v%d = bitcast i%d %%u%d to %s' % (k, width, k, ty))
            elif ty == 'i64':
                body.append('%%v%d = add i64 %%w%d, 0' % (k, k))
            else:
                body.append('%%v%d = trunc i64 %%w%d to %s' % (k, k, ty))
            call.append('%s %%v%d' % (ty, k))
            ints.append(roles.get(k) or ('float' if width else None))
    out.insert(0, 'target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"')
    out.insert(1, 'target triple = "x86_64-pc-linux-gnu"')
    out.append('@__ht_args = external global [64 x i64]')
    out.append('define void @__ht_run() {\n  %s\n  call void @"%s"(%s)\n  ret void\n}' %
               ('\n  '.join(body), entry, ', '.join(call)))
    return '\n'.join(out) + '\n', ints, maps


DRIVER = r'''
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

static unsigned tid, ntid, ctaid, nctaid, ctaid_y, nctaid_y;
static unsigned long long events, limit = 20000000ull;
static jmp_buf out;
static FILE *f;
static int digest;    /* HT_DIGEST set: a line a thread, the events' count and hash */
static uint64_t sum;  /* the thread's hash so far */

/* a made-up value: the same for the same statement, count and item in every build */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
static uint64_t hash_text(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    return h;
}
/* the statements' texts are constants: their hashes kept by address */
#define MEMO 8192
static const char *memo_at[MEMO];
static uint64_t memo_hash[MEMO];
static uint64_t hash_str(const char *s)
{
    unsigned i = (unsigned)(((uintptr_t)s >> 3) % MEMO);
    if (memo_at[i] != s) {
        memo_at[i] = s;
        memo_hash[i] = hash_text(s);
    }
    return memo_hash[i];
}
/* per statement: how many times this thread ran it (open addressing on the text's hash) */
#define SLOTS 4096
static uint64_t keys[SLOTS], counts[SLOTS];
static uint64_t *count_of(uint64_t h)
{
    for (unsigned i = (unsigned)h % SLOTS;; i = (i + 1) % SLOTS)
        if (keys[i] == h || !keys[i]) {
            keys[i] = h;
            return &counts[i];
        }
}
static void event(const char *kind, const char *what, int n, const uint64_t *v)
{
    if (++events > limit) {
        fprintf(f, "!! over %llu events: a loop that never ends?\n", limit);
        longjmp(out, 1);
    }
    if (digest) {
        sum = mix(sum ^ hash_str(kind) ^ hash_str(what) * 3);
        for (int i = 0; i < n; i++)
            sum = mix(sum ^ v[i]);
        return;
    }
    fprintf(f, "%s ", kind);
    for (const char *c = what; *c; c++) /* one line an event */
        fputs(*c == '\n' ? " ; " : *c == '\t' ? " " : (char[2]){*c, 0}, f);
    for (int i = 0; i < n; i++)
        fprintf(f, " %llx", (unsigned long long)v[i]);
    fputc('\n', f);
}
void __ht_asm(const char *what, int n, const uint64_t *v)
{
    (*count_of(hash_str(what)))++;
    event("asm", what, n, v);
}
void __ht_ld(const char *what, int n, const uint64_t *v) { event("", what, n, v); }
void __ht_st(const char *what, int n, const uint64_t *v) { event("", what, n, v); }
uint64_t __ht_ret(const char *what, int item)
{
    uint64_t h = hash_str(what);
    /* waits end at once */
    if (item == 0 && (strstr(what, "try_wait") || strstr(what, "test_wait")))
        return 1;
    return mix(h ^ mix(*count_of(h) * 1000003ull + (uint64_t)item));
}
uint64_t __ht_mem(uint64_t addr, int item) { return mix(addr * 64 + (uint64_t)item); }

unsigned __ht_nvvm_read_ptx_sreg_tid_x(void) { return tid; }
unsigned __ht_nvvm_read_ptx_sreg_tid_y(void) { return 0; }
unsigned __ht_nvvm_read_ptx_sreg_tid_z(void) { return 0; }
unsigned __ht_nvvm_read_ptx_sreg_ntid_x(void) { return ntid; }
unsigned __ht_nvvm_read_ptx_sreg_ntid_y(void) { return 1; }
unsigned __ht_nvvm_read_ptx_sreg_ntid_z(void) { return 1; }
unsigned __ht_nvvm_read_ptx_sreg_ctaid_x(void) { return ctaid; }
unsigned __ht_nvvm_read_ptx_sreg_ctaid_y(void) { return ctaid_y; }
unsigned __ht_nvvm_read_ptx_sreg_ctaid_z(void) { return 0; }
unsigned __ht_nvvm_read_ptx_sreg_nctaid_x(void) { return nctaid; }
unsigned __ht_nvvm_read_ptx_sreg_nctaid_y(void) { return nctaid_y; }
unsigned __ht_nvvm_read_ptx_sreg_nctaid_z(void) { return 1; }
unsigned __ht_nvvm_read_ptx_sreg_laneid(void) { return tid % 32; }
unsigned __ht_nvvm_read_ptx_sreg_warpid(void) { return tid / 32; }
void __ht_nvvm_barrier0(void) { event("bar.sync 0", "", 0, NULL); }
void __ht_nvvm_barrier_sync(unsigned id) { uint64_t v = id; event("bar.sync", "", 1, &v); }
float __ht_nvvm_fma_rn_f(float a, float b, float c) { return fmaf(a, b, c); }

void __ht_run(void);
uint64_t __ht_args[64];

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 4 + 64) {
        fprintf(stderr, "usage: %s BLOCKS_X BLOCKS_Y THREADS [INTEGER_PARAMETER...]\n", argv[0]);
        return 2;
    }
    nctaid = (unsigned)atoi(argv[1]);
    nctaid_y = (unsigned)atoi(argv[2]);
    ntid = (unsigned)atoi(argv[3]);
    for (int i = 4; i < argc; i++)
        __ht_args[i - 4] = strtoull(argv[i], NULL, 0);
    f = stdout;
    digest = getenv("HT_DIGEST") != NULL;
    /* HT_ONLY=x,y,t: that thread alone */
    int only = getenv("HT_ONLY") != NULL;
    unsigned ox = 0, oy = 0, ot = 0, tlo = 0, thi = ~0u;
    if (only && sscanf(getenv("HT_ONLY"), "%u,%u,%u", &ox, &oy, &ot) != 3)
        return 2;
    /* HT_TIDS=lo,hi: those threads of each block alone */
    if (getenv("HT_TIDS") && sscanf(getenv("HT_TIDS"), "%u,%u", &tlo, &thi) != 2)
        return 2;
    for (ctaid_y = 0; ctaid_y < nctaid_y; ctaid_y++)
        for (ctaid = 0; ctaid < nctaid; ctaid++)
            for (tid = 0; tid < ntid; tid++) {
                if ((only && (ctaid != ox || ctaid_y != oy || tid != ot)) || tid < tlo || tid > thi)
                    continue;
                memset(keys, 0, sizeof keys);
                memset(counts, 0, sizeof counts);
                events = 0;
                sum = 0;
                if (!digest)
                    fprintf(f, "== block %u,%u thread %u\n", ctaid, ctaid_y, tid);
                if (!setjmp(out))
                    __ht_run();
                if (digest)
                    fprintf(f, "== block %u,%u thread %u: %llu events, %016llx\n", ctaid, ctaid_y, tid, events,
                            (unsigned long long)sum);
            }
    return 0;
}
'''


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        die("%s failed (%d):\n%s%s" % (cmd[0], r.returncode, r.stdout[-2000:], r.stderr[-4000:]))
    return r.stdout


def run_first(cmds):
    """the first command's output, or the next one's where it exits 2 (a usage error: an older tilec)"""
    for cmd in cmds[:-1]:
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode == 0:
            return r.stdout
        if r.returncode != 2:
            die("%s failed (%d):\n%s%s" % (cmd[0], r.returncode, r.stdout[-2000:], r.stderr[-4000:]))
    return run(cmds[-1])


def modules(text):
    """entry name -> its module's text (tilec heads each with a '; ----- tilec:' line when there are several)"""
    parts = re.split(r'^; ----- tilec: the LLVM module of entry @(\S+?)(?: \((the entry|its producers\' function)\))? -----$',
                     text, flags=re.M)
    if len(parts) == 1:
        return {None: text}
    # -frole-functions: an entry's module and its producers' function's (@<entry>$producers)
    return {parts[i].strip('"') + ('$producers' if parts[i + 1] == "its producers' function" else ''): parts[i + 2]
            for i in range(1, len(parts), 3)}


class Build:
    """one tilec's lowering of the entry, compiled for the host"""

    def __init__(self, tilec, tir, opts, entry, work, tag):
        # the optimized pipeline's structure in unoptimized IR (-O0 alone waits for every wgmma
        # group at once, for valid PTX); a tilec older than the option lacks that -O0 rule too
        ir = run_first([[tilec, '-O0', '-fno-wgmma-serial', '-g0', '--emit=llvm', tir] + opts,
                        [tilec, '-O0', '-g0', '--emit=llvm', tir] + opts])
        mods = modules(ir)
        mod = mods.get(entry) or mods.get(None)
        if mod is None:
            die("%s: no module for entry @%s (entries: %s)" % (tilec, entry, ', '.join(k for k in mods if k)))
        gen = Gen()
        # -frole-functions' producers take the entry's parameters; its module says which are hidden
        base = entry[:-len('$producers')] if entry.endswith('$producers') else None
        roles_from = (mods[base], base) if base and base in mods else None
        host, self.ints, self.maps = hostify(mod, entry, gen, roles_from)
        self.entry = entry
        ll, obj, self.exe = (os.path.join(work, tag + s) for s in ('.ll', '.o', ''))
        with open(ll, 'w') as fh:
            fh.write(host + gen.trailer())
        run(['llc-19', '-O0', '-filetype=obj', '-relocation-model=pic', ll, '-o', obj])
        drv = os.path.join(work, 'driver.c')
        with open(drv, 'w') as fh:
            fh.write(DRIVER)
        run(['cc', '-O1', '-w', drv, obj, '-o', self.exe, '-lm'])

    def launch(self, spec, threads, env=None):
        """the trace of one launch: spec has args (the declared scalars), and
        optionally grid (a persistent kernel's programs), flags, blocks"""
        declared = list(spec['args'])
        values = []
        for role in self.ints:
            if role == 'flags':
                values.append((1 << self.maps) - 1 if spec.get('flags') is None else spec['flags'])
            elif role == 'float':
                if not declared:
                    die("args= has fewer values than @%s declares" % self.entry)
                values.append(struct.unpack('<I', struct.pack('<f', float(declared.pop(0))))[0])
            elif role:
                if not spec.get('grid'):
                    die("@%s is persistent: give grid=X[,Y,Z] (its programs)" % self.entry)
                values.append((spec['grid'] + [1, 1])[role[1]])
            else:
                if not declared:
                    die("args= has fewer values than @%s declares" % self.entry)
                values.append(int(declared.pop(0), 0) & 0xffffffffffffffff)
        if declared:
            die("args= has more values than @%s declares" % self.entry)
        blocks = spec.get('blocks', [1]) + [1]
        return run([self.exe, str(blocks[0]), str(blocks[1]), str(threads)] + [str(v) for v in values],
                   env=dict(os.environ, **(env or {})))


def parse_launch(text):
    spec = {}
    for item in text.split():
        k, _, v = item.partition('=')
        if k not in ('args', 'grid', 'flags', 'blocks'):
            die("--launch: %s is none of args=, grid=, flags=, blocks=" % item)
        items = [x for x in v.split(',') if x]
        if k == 'args': # as written: an integer or a float, told by the parameter's type
            spec[k] = items
        else:
            nums = [int(x, 0) for x in items]
            spec[k] = nums if k != 'flags' else nums[0]
    if 'args' not in spec:
        die("--launch needs args=")
    return spec


def compare(a, b):
    """None, or where the traces a and b first differ"""
    x, y = a.split('\n'), b.split('\n')
    for k, (p, q) in enumerate(zip(x, y)):
        if p != q:
            head = [l for l in x[:k] if l.startswith('==')]
            return 'line %d (%s):\n  %s\n  %s' % (k + 1, head[-1] if head else '', p[:300], q[:300])
    if len(x) != len(y):
        return 'one trace is longer: %d against %d lines' % (len(x), len(y))
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--tilec', action='append', required=True,
                    help='a tilec binary, and options for it alone after spaces (twice: compare two builds, '
                         'or two options)')
    ap.add_argument('--entry', action='append', required=True,
                    help='the entry point (kernel name, name$rounded; name$producers: -frole-functions\'s '
                         'producers); twice: one for each build')
    ap.add_argument('--launch', action='append', required=True,
                    help='"args=M,N,... [grid=X,Y,Z] [flags=F] [blocks=B]": the declared scalar parameters, '
                         'a persistent kernel\'s programs, the hidden flags (default: every tensor map '
                         'encoded), the blocks (x[,y], default 1), each traced thread by thread; '
                         'several --launch: one build, several runs')
    ap.add_argument('--threads', type=int, help='threads a block (default: the kernel\'s .maxntid)')
    ap.add_argument('--tids', help='LO-HI: trace those threads of each block only (e.g. one role\'s, to '
                                   'compare a -frole-functions part with the whole kernel)')
    ap.add_argument('--keep', help='a folder to keep the host IR and the traces in')
    ap.add_argument('tir')
    ap.add_argument('opts', nargs='*', help='tilec options (after --)')
    a = ap.parse_args()
    if len(a.tilec) > 2:
        die("at most two --tilec")
    launches = [parse_launch(x) for x in a.launch]
    if a.tids:
        m = re.match(r'^(\d+)-(\d+)$', a.tids)
        if not m:
            die("--tids takes LO-HI")
        os.environ['HT_TIDS'] = '%s,%s' % m.groups()
    work = a.keep or tempfile.mkdtemp(prefix='hosttrace.')
    os.makedirs(work, exist_ok=True)
    threads = a.threads
    if not threads:
        ptx = run(a.tilec[0].split() + [a.tir] + a.opts)
        m = re.search(r'\.entry %s\(.*?\)\s*\.maxntid (\d+)' % re.escape(a.entry[0]), ptx, re.S)
        if not m:
            die("no .maxntid for @%s in the PTX: give --threads" % a.entry[0])
        threads = int(m.group(1))
    if len(a.entry) > len(a.tilec) or len(a.entry) > 2:
        die("one --entry, or one for each build")
    builds = [Build(t.split()[0], a.tir, a.opts + t.split()[1:], a.entry[min(i, len(a.entry) - 1)], work, 'build%d' % i)
              for i, t in enumerate(a.tilec)]
    rc = 0
    for n, spec in enumerate(launches):
        # a line a thread (its events' count and hash); then the first thread
        # whose lines differ, traced in full by both builds
        if len(builds) < 2: # one build: its whole trace, for reading
            t = builds[0].launch(spec, threads)
            with open(os.path.join(work, 'launch%d.build0.trace' % n), 'w') as fh:
                fh.write(t)
            print('%s: %d threads a block, %d events traced (%s)' %
                  (a.launch[n], threads, sum(1 for l in t.split('\n') if l and not l.startswith('==')),
                   os.path.join(work, 'launch%d.build0.trace' % n)))
            continue
        digests = [b.launch(spec, threads, {'HT_DIGEST': '1'}) for b in builds]
        events = [sum(int(x) for x in re.findall(r': (\d+) events', d)) for d in digests]
        what = '%s: %d threads a block, %s events' % (a.launch[n], threads, ' / '.join(map(str, events)))
        if a.keep:
            for i, d in enumerate(digests):
                with open(os.path.join(work, 'launch%d.build%d.digest' % (n, i)), 'w') as fh:
                    fh.write(d)
        lines = [d.split('\n') for d in digests]
        bad = next((x for x, y in zip(*lines) if x != y), None)
        if bad is None and len(lines[0]) == len(lines[1]):
            print(what + ': the same')
            continue
        rc = 1
        if bad is None:
            print(what + ': one build traced more threads')
            continue
        m = re.match(r'== block (\d+),(\d+) thread (\d+)', bad)
        only = {'HT_ONLY': '%s,%s,%s' % m.groups()}
        full = [b.launch(spec, threads, only) for b in builds]
        if a.keep:
            for i, t in enumerate(full):
                with open(os.path.join(work, 'launch%d.build%d.trace' % (n, i)), 'w') as fh:
                    fh.write(t)
        print('%s: they differ, first at %s' % (what, compare(*full)))
    if not a.keep and len(builds) == 2:
        shutil.rmtree(work, ignore_errors=True)
    return rc


if __name__ == '__main__':
    sys.exit(main())
