#!/usr/bin/env python3
"""Counts the LLVM IR instructions on the hot path of the wgmma producer's loop.

usage: tilec KERNEL.tir [options] --emit=llvm -g0 | bench/ir_hot_loop.py

A device-free proxy for the producer's per-step work (bench/NOTES.md: the
producer is instruction-bound): the blocks of its loop (from `prod.loop`
back to it) except the cold ones (element-path copies `cp.edge*`, the exact
special-value rounding `rnd.special*`, the unchecked 4-byte path
`cp.inside*`). IR instructions include free ones (phis, vector element
moves, bitcasts), so compare variants of one kernel, not kernels.
"""
import re
import sys


def main():
    text = sys.stdin.read()
    if "define" not in text or "prod.loop:" not in text:
        sys.exit("ir_hot_loop: no wgmma producer loop in the input (an sm_90a GEMM kernel, --emit=llvm)")
    blocks, cur = {}, None
    for line in text[text.index("define"):].split("\n"):
        m = re.match(r"^([A-Za-z$._][\w$.]*):", line)
        if m:
            cur = m.group(1)
            blocks[cur] = []
        elif cur and line.startswith("  ") and line.strip() and not line.strip().startswith(";"):
            blocks[cur].append(line.strip())

    def succ(b):
        return re.findall(r"label %([\w$.]+)", blocks[b][-1]) if blocks.get(b) else []

    def cold(b):
        return b.startswith(("cp.edge", "rnd.special", "cp.inside", "prod.exit"))

    start, seen, stack = "prod.loop", set(), ["prod.loop"]
    while stack:
        b = stack.pop()
        if b in seen or cold(b) or b not in blocks:
            continue
        seen.add(b)
        stack.extend(s for s in succ(b) if s != start)

    def reaches(b, vis):
        if b in vis:
            return False
        vis.add(b)
        return any(s == start or (s in seen and reaches(s, vis)) for s in succ(b))

    body = [b for b in seen if b == start or reaches(b, set())]
    n = sum(len(blocks[b]) for b in body)
    print(f"producer loop, hot path: {len(body)} blocks, {n} IR instructions")


if __name__ == "__main__":
    main()
