import csv, sys, collections
def load(p):
    lines=open(p).read().splitlines()
    i=next(i for i,l in enumerate(lines) if l.startswith('"Address"'))
    rows=list(csv.reader(lines[i:]))
    h=rows[0]; return h,[dict(zip(h,r)) for r in rows[1:] if len(r)==len(h)]
def num(x):
    try: return float(x.replace(',',''))
    except: return 0.0
p=sys.argv[1]; h,rows=load(p)
tot=sum(num(r['Warp Stall Sampling (All Samples)']) for r in rows)
print(p, 'instructions', len(rows), 'samples', tot)
# shared wavefronts per opcode
agg=collections.defaultdict(lambda:[0,0,0,0])
for r in rows:
    op=r['Source'].split()[0] if not r['Source'].strip().startswith('@') else r['Source'].split()[1]
    a=agg[op]; a[0]+=num(r['L1 Wavefronts Shared']); a[1]+=num(r['L1 Wavefronts Shared Ideal']); a[2]+=num(r['Warp Stall Sampling (All Samples)']); a[3]+=num(r['Instructions Executed'])
for op,a in sorted(agg.items(), key=lambda x:-x[1][2])[:25]:
    print(f"{op:28} wav {a[0]:12.0f} ideal {a[1]:12.0f} samples {a[2]:8.0f} ({a[2]/tot*100:5.1f}%) exec {a[3]:12.0f}")
print('top instructions by samples:')
cols=[c for c in h if c.startswith('smsp__pcsamp') or 'stall' in c.lower()]
for r in sorted(rows, key=lambda r:-num(r['Warp Stall Sampling (All Samples)']))[:12]:
    print(f"{num(r['Warp Stall Sampling (All Samples)']):7.0f} {r['Address'][-5:]} {r['Source'].strip()[:70]}")
