import csv,sys,re
rows=list(csv.reader(open(sys.argv[1])))
hdr=rows[1]; data=rows[2:]
names=hdr[31:49]
tot=[0]*len(names); 
def num(x):
    try: return float(x.replace(',',''))
    except: return 0
# classify region by opcode
byop={}
allsamp=0
for r in data:
    s=[num(x) for x in r[31:49]]
    for i,v in enumerate(s): tot[i]+=v
    op=r[1].strip().split()
    op=[o for o in op if not o.startswith('@')][0].split('.')[0] if op else '?'
    byop.setdefault(op,[0]*len(names))
    for i,v in enumerate(s): byop[op][i]+=v
    allsamp+=num(r[2])
T=sum(tot)
print('total samples',T, allsamp)
for n,v in sorted(zip(names,tot),key=lambda x:-x[1])[:10]: print(f'{n:28s} {v/T*100:5.1f}%')
print('by opcode (top):')
for op,v in sorted(byop.items(),key=lambda x:-sum(x[1]))[:12]:
    s=sum(v); top=sorted(zip(names,v),key=lambda x:-x[1])[:3]
    print(f'{op:10s} {s/T*100:5.1f}%  '+', '.join(f'{n} {x/T*100:.1f}' for n,x in top))
# wavefronts
wf=sum(num(r[19]) for r in data); wfi=sum(num(r[20]) for r in data)
print('L1 wavefronts shared',wf,'ideal',wfi)
