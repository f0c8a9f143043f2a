#!/usr/bin/env python3
"""Compares the hot loops of two PTX files' SASS, for changes made without a GPU.

    bench/sass_loops.py OLD.ptx NEW.ptx [--arch=sm_90a]

Assembles both with ptxas (-v: registers and spills) and disassembles them
with cuobjdump (CUOBJDUMP, else on PATH: the toolkit here lacks it, `pip
download nvidia-cuda-cuobjdump` has it). Prints, for each file, the loops
(a backward branch's range) that hold an MMA (HGMMA, HMMA), FFMA, a copy to
shared memory (LDGSTS, UTMALDG) or a barrier wait (SYNCS) and no global store
(the pipeline's K loops: consumers' and producers'): their length and the opcodes whose
counts differ; the loops that also store (a persistent kernel's loop over its
programs, with the epilogue; ptxas may place their heads inside a K loop)
only by length. Same lengths and counts for
the K loops say the change left their work alone (registers may be renamed).
Kernels with several entries (a tf32-rna kernel's entry for rounded views)
are split by function and their K loops compared as sets: each K loop of
either file should be one of the other's (same opcode counts); the ones
that are not are printed with the nearest of the other file's.
Exit status 1 if a K loop differs.
"""
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

LINE = re.compile(r'\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;')
BRANCH = re.compile(r'\bBRA\b.*?(0x[0-9a-f]+)')


def sass(ptx, arch, tmp):
    cubin = os.path.join(tmp, os.path.basename(ptx) + '.cubin')
    r = subprocess.run([os.environ.get('PTXAS', 'ptxas'), '-arch=' + arch, '-v', ptx, '-o', cubin],
                       capture_output=True, text=True, check=True)
    info = ' '.join(l.strip() for l in r.stderr.splitlines() if 'spill' in l or 'Used' in l)
    cuobjdump = os.environ.get('CUOBJDUMP') or shutil.which('cuobjdump')
    if not cuobjdump:
        sys.exit('sass_loops: no cuobjdump (set CUOBJDUMP)')
    out = subprocess.run([cuobjdump, '-sass', cubin], capture_output=True, text=True, check=True).stdout
    fns = []  # (name, instructions): addresses start again at each function
    for line in out.splitlines():
        if line.strip().startswith('Function : '):
            fns.append((line.split(':', 1)[1].strip(), []))
        elif fns and (m := LINE.match(line)):
            fns[-1][1].append((int(m.group(1), 16), m.group(2)))
    return info, fns


def opcode(ins):
    words = ins.split()
    return words[1] if words[0].startswith('@') else words[0]


def hot_loops(ins):
    at = {a: i for i, (a, _) in enumerate(ins)}
    loops = []
    for i, (a, text) in enumerate(ins):
        m = BRANCH.search(text)
        if not m or int(m.group(1), 16) > a or int(m.group(1), 16) not in at:
            continue
        lo = at[int(m.group(1), 16)]
        loops.append((lo, i, collections.Counter(opcode(t) for _, t in ins[lo:i + 1])))
    hot = [x for x in loops if any(k.startswith(('HGMMA', 'HMMA', 'FFMA', 'LDGSTS', 'UTMALDG', 'SYNCS')) for k in x[2])]
    inner = [x for x in hot if not any(k.startswith('STG') for k in x[2])]
    outer = [x for x in hot if any(k.startswith('STG') for k in x[2])]
    return [x[2] for x in inner], sorted(sum(x[2].values()) for x in outer)


def delta(a, b):
    return {op: b[op] - a[op] for op in sorted(set(a) | set(b)) if a[op] != b[op]}


def unmatched(mine, theirs):
    """mine's K loops whose opcode counts no loop of theirs has, each with the nearest of theirs."""
    out = []
    for c in mine:
        if c in theirs:
            continue
        near = min(theirs, key=lambda t: sum(abs(v) for v in delta(c, t).values()), default=collections.Counter())
        out.append((c, near))
    return out


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--arch=')]
    arch = next((a[7:] for a in sys.argv[1:] if a.startswith('--arch=')), 'sm_90a')
    if len(args) != 2:
        sys.exit(__doc__)
    with tempfile.TemporaryDirectory() as tmp:
        old, new = (sass(p, arch, tmp) for p in args)
    (lo, oo), (ln, on) = ([], []), ([], [])
    for (loops, outer), (_, fns) in (((lo, oo), old), ((ln, on), new)):
        for _, ins in fns:
            i, o = hot_loops(ins)
            loops += i
            outer += o
    size = lambda x: sum(len(ins) for _, ins in x[1])
    print(f'old: {old[0]}\nnew: {new[0]}')
    print(f'SASS instructions: old {size(old)}, new {size(new)}; K loops: old {len(lo)}, new {len(ln)}; '
          f'entries: old {len(old[1])}, new {len(new[1])}')
    print(f'loops around them (instructions): old {sorted(oo)}, new {sorted(on)}')
    if len(old[1]) == len(new[1]) and len(lo) == len(ln):  # the same entries: loop by loop
        differ = 0
        for k, (a, b) in enumerate(zip(lo, ln)):
            d = delta(a, b)
            differ |= bool(d)
            print(f'loop {k}: old {sum(a.values())}, new {sum(b.values())} instructions'
                  + (f'; differ: {d}' if d else '; same opcode counts'))
        return 1 if differ else 0
    gone, added = unmatched(lo, ln), unmatched(ln, lo)
    print(f'K loops as sets: {len(lo) - len(gone)} of old\'s {len(lo)} are in new, '
          f'{len(ln) - len(added)} of new\'s {len(ln)} are in old')
    for what, rows in (('old', gone), ('new', added)):
        for c, near in rows:
            print(f'{what} loop of {sum(c.values())} instructions in no loop of the other; differ from the '
                  f'nearest ({sum(near.values())}): {delta(near, c)}')
    return 1 if gone or added else 0


if __name__ == '__main__':
    sys.exit(main())
