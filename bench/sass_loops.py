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
    return info, [(int(m.group(1), 16), m.group(2)) for m in map(LINE.match, out.splitlines()) if m]


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


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--arch=')]
    arch = next((a[7:] for a in sys.argv[1:] if a.startswith('--arch=')), 'sm_90a')
    if len(args) != 2:
        sys.exit(__doc__)
    with tempfile.TemporaryDirectory() as tmp:
        old, new = (sass(p, arch, tmp) for p in args)
    differ = 0
    (lo, oo), (ln, on) = hot_loops(old[1]), hot_loops(new[1])
    print(f'old: {old[0]}\nnew: {new[0]}')
    print(f'SASS instructions: old {len(old[1])}, new {len(new[1])}; K loops: old {len(lo)}, new {len(ln)}')
    print(f'loops around them (instructions): old {oo}, new {on}')
    for k in range(max(len(lo), len(ln))):
        a = lo[k] if k < len(lo) else collections.Counter()
        b = ln[k] if k < len(ln) else collections.Counter()
        delta = {op: b[op] - a[op] for op in sorted(set(a) | set(b)) if a[op] != b[op]}
        differ |= bool(delta)
        print(f'loop {k}: old {sum(a.values())}, new {sum(b.values())} instructions'
              + (f'; differ: {delta}' if delta else '; same opcode counts'))
    return 1 if differ else 0


if __name__ == '__main__':
    sys.exit(main())
