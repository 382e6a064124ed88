import sys,statistics as st
from rounds import rounds
def ci(v):
    v=sorted(v); n=len(v); mid=n//2; h=0
    while h*h*10000 < 9604*n: h+=1
    return v[max(mid-h,0)], v[min(mid+h,n-1)]
files=sys.argv[1:]
pool={}
for f in files:
    for k,rd in rounds(f).items():
        med={m:st.median([x[m]['cpu_s_per_gb'] for x in rd]) for m in ('cpu','ring')}
        ch='ring' if med['ring']<med['cpu'] else 'cpu'
        for x in rd:
            pool.setdefault(k,[]).append((x['auto']['gbps']/x[ch]['gbps'], x['auto']['cpu_s_per_gb']/x[ch]['cpu_s_per_gb'], ch))
ok=0
for k,v in pool.items():
    g=[a for a,b,c in v]; c=[b for a,b,c in v]
    pg,pc=st.median(g),st.median(c); gl,gh=ci(g); cl,chh=ci(c)
    good=pg>=0.95 and pc<=1.05; ok+=good
    print(f"{k[0]} {k[1]:2d}: n={len(v)} cheaper {v[0][2]} GB/s {pg:.3f} ({gl:.3f}-{gh:.3f}) s/GB {pc:.3f} ({cl:.3f}-{chh:.3f}) {'ok' if good else 'MISS'}")
print(ok,'/',len(pool))
