# clean.py FILE...: as it is, auto over dispatch=cpu in the same round (CPU
# per GB), split by whether auto sent any request to the ring (>= 0.3 %)
import json, re, sys, statistics as st
pool = {}
for f in sys.argv[1:]:
    seq = {}
    for r in json.load(open(f))['results']:
        if r['path'].startswith('dispatch-'):
            n = int(re.match(r'(\d+) thr', r['note']).group(1))
            seq.setdefault((r['alg'], n), []).append(r)
    for k, rows in seq.items():
        for i in range(0, len(rows), 3):
            x = {r['path'][9:]: r for r in rows[i:i + 3]}
            share = float(x['auto']['note'].split(', ')[1].split('%')[0])
            c = x['auto']['cpu_s_per_gb'] / x['cpu']['cpu_s_per_gb']
            pool.setdefault(k, ([], []))[share >= 0.3].append(c)
for k, (clean, burst) in pool.items():
    print(f"{k[0]} {k[1]:2d} thr: no ring {len(clean):3d} rounds, median {st.median(clean):.3f}; "
          f"some ring {len(burst):3d} rounds" + (f", median {st.median(burst):.3f}" if burst else ""))
