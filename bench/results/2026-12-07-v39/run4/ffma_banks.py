import re, sys
for f in sys.argv[1:]:
    ff=[l for l in open(f) if re.search(r'\bFFMA\b', l)]
    stats={2:[0,0],4:[0,0]}
    prev=None
    for l in ff:
        m=re.search(r'FFMA (R\d+), (R\d+)(\.reuse)?, (R\d+)(\.reuse)?, (R\d+)(\.reuse)?', l)
        if not m: continue
        srcs=[(int(m.group(2)[1:]),m.group(3)),(int(m.group(4)[1:]),m.group(5)),(int(m.group(6)[1:]),m.group(7))]
        # operands served by the reuse cache: those flagged .reuse on the previous instruction in the same slot
        live=[]
        for slot,(r,ru) in enumerate(srcs):
            if prev and prev[slot][0]==r and prev[slot][1]: continue
            live.append(r)
        for nb in (2,4):
            b=[r%nb for r in live]
            stats[nb][0]+= len(b)-len(set(b)) > 0
            stats[nb][1]+= 1
        prev=srcs
    print(f, {k:f"{v[0]}/{v[1]}" for k,v in stats.items()})
