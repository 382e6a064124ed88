# perreq.py: as it is, host CPU per request and GB/s of dispatch=cpu
# (OpenSSL) and auto, medians over the rounds of c7b16ac's three runs and
# 4c39f45's two, with auto's paired ratio per request (docs/benchmarks.md)
import statistics as st
from rounds import rounds


def pool(files):
    P = {}
    for f in files:
        for k, rd in rounds(f).items():
            P.setdefault(k, []).extend(rd)
    return P


Z = pool(['6-repeat/asis-Z.json', '7-repeat-again/asis-Z.json', '7-repeat-again/again/asis-Z.json'])
H = pool(['6-repeat/asis-H.json', '7-repeat-again/asis-H.json'])
for k in Z:
    def s(P, m, f):
        return st.median(x[m][f] for x in P[k])

    def pr(P):
        return st.median(x['auto']['cpu_us_per_req'] / x['cpu']['cpu_us_per_req'] for x in P[k])
    print(f"{k[0]} {k[1]} thr: cpu {s(Z, 'cpu', 'cpu_us_per_req'):.2f} us {s(Z, 'cpu', 'gbps'):.1f} GB/s; "
          f"auto H {s(H, 'auto', 'cpu_us_per_req'):.2f} us ({pr(H):.3f} x) {s(H, 'auto', 'gbps'):.1f} GB/s; "
          f"auto Z {s(Z, 'auto', 'cpu_us_per_req'):.2f} us ({pr(Z):.3f} x) {s(Z, 'auto', 'gbps'):.1f} GB/s")
