import re, sys, collections
# split.py stamped.txt perf.script: samples per (thread comm, symbol) in
# the cpu, ring and auto slices of each point (round 0: cpu, ring, auto)
stamps = []
for l in open(sys.argv[1]):
    m = re.match(r'([\d.]+) # trace (\S+) (\d+) thr round (\d+) (before|after)', l)
    if m:
        stamps.append((float(m.group(1)), m.group(2), m.group(5)))
wins = []
for i in range(0, len(stamps) - 1, 2):
    t0, alg, _ = stamps[i]
    t1 = stamps[i + 1][0]
    d = t1 - t0
    wins.append((alg, 'auto', t0 + 0.05, t1 - 0.05))
    wins.append((alg, 'ring', t0 - d - 0.0, t0 - 0.05))
    wins.append((alg, 'cpu', t0 - 2 * d - 0.05, t0 - d - 0.1))
cnt = collections.defaultdict(collections.Counter)
tot = collections.Counter()
for l in open(sys.argv[2]):
    m = re.match(r'\s*(\S.*?)\s+(\d+)\s+([\d.]+):\s+[0-9a-f]+\s+(.*?)\s*\(([^()]*)\)\s*$', l)
    if not m:
        continue
    comm, tid, t, sym, dso = m.groups()
    t = float(t)
    for w in wins:
        if w[2] <= t < w[3]:
            key = (w[0], w[1])
            role = 'submit' if comm.startswith('bench-submit') else comm
            cnt[key][(role, sym if sym != '[unknown]' else dso.split('/')[-1])] += 1
            tot[key] += 1
for w in wins:
    key = (w[0], w[1])
    print("== %s %s: %.2f s window, %d samples" % (w[0], w[1], w[3] - w[2], tot[key]))
    for (role, sym), n in cnt[key].most_common(40):
        print("  %6d %5.1f%%  %-16s %s" % (n, 100.0 * n / max(tot[key], 1), role, sym))
