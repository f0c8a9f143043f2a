import csv,sys
rows=list(csv.reader(open(sys.argv[1])))
hdr=rows[1]; data=rows[2:]
names=hdr[31:49]
def num(x):
    try: return float(x.replace(',',''))
    except: return 0
T=sum(num(r[2]) for r in data)
cls={}
for r in data:
    e=num(r[5]); s=[num(x) for x in r[31:49]]
    c=cls.setdefault(e,[0]*len(names))
    for i,v in enumerate(s): c[i]+=v
for e,v in sorted(cls.items(),key=lambda x:-sum(x[1]))[:8]:
    s=sum(v); top=sorted(zip(names,v),key=lambda x:-x[1])[:5]
    print(f'exec {e:>10.0f}: {s/T*100:5.1f}%  '+', '.join(f'{n[6:]} {x/T*100:.1f}' for n,x in top))
