import json,re,sys,statistics as st,math
def ci(v):
    v=sorted(v); n=len(v); mid=n//2; h=0
    while h*h*10000 < 9604*n: h+=1
    return v[max(mid-h,0)], v[min(mid+h,n-1)]
for f in sys.argv[1:]:
    res=json.load(open(f))['results']
    seq={}
    for r in res:
        if not r['path'].startswith('dispatch-'): continue
        n=int(re.match(r'(\d+) thr',r['note']).group(1))
        seq.setdefault((r['alg'],n),[]).append(r)
    ok=0;tot=0;res_=0
    print('#',f)
    for key,rows in seq.items():
        rounds=[rows[i:i+3] for i in range(0,len(rows),3)]
        d=[{r['path'][9:]:r for r in rd} for rd in rounds]
        med={m:st.median([x[m]['cpu_s_per_gb'] for x in d]) for m in ('cpu','ring','auto')}
        cheaper='ring' if med['ring']<med['cpu'] else 'cpu'
        g=[x['auto']['gbps']/x[cheaper]['gbps'] for x in d]
        c=[x['auto']['cpu_s_per_gb']/x[cheaper]['cpu_s_per_gb'] for x in d]
        pg,pc=st.median(g),st.median(c); gl,gh=ci(g); cl,chh=ci(c)
        good=pg>=0.95 and pc<=1.05; ok+=good; tot+=1
        resolved=(gl>=0.95 or gh<0.95) and (chh<=1.05 or cl>1.05); res_+=resolved
        share=st.median([float(x['auto']['note'].split(', ')[1].split('%')[0]) for x in d])
        print(f"{key[0]} {key[1]:2d} thr: cheaper {cheaper:4s} paired GB/s {pg:.3f} ({gl:.3f}-{gh:.3f}) s/GB {pc:.3f} ({cl:.3f}-{chh:.3f}) {'ok' if good else 'MISS'}{' resolved' if resolved else ''}; auto ring share median {share}%, rounds {len(d)}")
    print(f"  {ok}/{tot} within the paired bound, {res_}/{tot} resolved")
