import csv, sys, collections
def load(p):
    lines=open(p).read().splitlines()
    i=next(i for i,l in enumerate(lines) if l.startswith('"Address"'))
    rows=list(csv.reader(lines[i:])); h=rows[0]
    return h,[dict(zip(h,r)) for r in rows[1:] if len(r)==len(h)]
def num(x):
    try: return float(x.replace(',',''))
    except: return 0.0
for p in sys.argv[1:]:
    h,rows=load(p)
    st=[c for c in h if c.startswith('stall_') and 'Not Issued' not in c]
    # group by execution count (role): consumers' loop instructions have the most executions
    g=collections.defaultdict(lambda: collections.Counter())
    for r in rows:
        op=(r['Source'].split()[1] if r['Source'].strip().startswith('@') else r['Source'].split()[0]).split('.')[0]
        cls='FFMA' if op=='FFMA' else ('LDS' if op=='LDS' else 'other')
        for c in st: g[cls][c]+=num(r[c])
        g[cls]['n']+=num(r['Instructions Executed'])
    print(p)
    for cls,c in g.items():
        tot=sum(v for k,v in c.items() if k!='n')
        print(f"  {cls:6} exec {c['n']:.3g} samples {tot:.0f}: "+', '.join(f"{k[6:]} {v:.0f}" for k,v in c.most_common(8) if k!='n'))
