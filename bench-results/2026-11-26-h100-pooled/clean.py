# clean.py FILE...: as it is, auto over dispatch=cpu in the same round (CPU
# per GB), split by whether auto sent any request to the ring (>= 0.3 %)
import sys, statistics as st
from rounds import rounds
pool = {}
for f in sys.argv[1:]:
    for k, rd in rounds(f).items():
        for x in rd:
            share = float(x['auto']['note'].split(', ')[1].split('%')[0])
            c = x['auto']['cpu_s_per_gb'] / x['cpu']['cpu_s_per_gb']
            pool.setdefault(k, ([], []))[share >= 0.3].append(c)
for k, (clean, burst) in pool.items():
    print(f"{k[0]} {k[1]:2d} thr: no ring {len(clean):3d} rounds, median {st.median(clean):.3f}; "
          f"some ring {len(burst):3d} rounds" + (f", median {st.median(burst):.3f}" if burst else ""))
