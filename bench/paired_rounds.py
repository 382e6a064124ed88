#!/usr/bin/env python3
"""paired_rounds.py - two trees of one results folder, round by round.

    python3 bench/paired_rounds.py FOLDER BASE NEW [REGEX]

FOLDER is one device call's results as they came back (never committed:
docs/performance.md says where figures go) whose run.sh
wrote raw.txt, qd1.txt and deep.txt through device-call.sh's B, with
section tags "<round> raw", "<round> qd1", "<round> t16" and "<round>
null" (the null backend at QD1), and mid.txt, if there, with tags
"<round> <load>" (16 threads at a lower window, fewer threads...).  For
each figure it prints BASE's and
NEW's value in every round, NEW - BASE per round (range, and in how many
rounds NEW was lower), and the null backend's QD1 figures beside:

  raw-qd1*         p50 of a lone launch (us); -gpu: p50 less the launch
                   call (the GPU's part; raw-qd1 4 KiB only)
  qd1-p50, qd1-cpu the ring's QD1 p50 and host CPU per request (us)
  t16-Mreq, t16-cpu 16 threads: requests/s (M) and CPU per request (us)
  LOAD-Mreq, LOAD-cpu the same of mid.txt's loads, by their tags

REGEX keeps the figures whose "name alg bytes" line it matches.
"""
import argparse
import collections
import os
import re

# The same reading of a folder's files as results_summary.py's.
from results_summary import ROW, runs

RAW_QD1 = ('raw-qd1', 'raw-qd1-zc', 'raw-qd1-word')


def read(folder):
    fig = collections.defaultdict(dict)  # (name, alg, bytes) -> {(tree, round): v}
    for name in ('raw.txt', 'qd1.txt', 'deep.txt', 'mid.txt'):
        path = os.path.join(folder, name)
        if not os.path.exists(path):
            continue
        for head, lines in runs(path):
            tree, rnd, kind = (head.split() + ['', '', ''])[:3]
            for line in lines:
                m = ROW.match(line)
                if not m:
                    continue
                row, alg, size = m.group(1), m.group(2), m.group(3)
                rps, p50, cpu = float(m.group(5)), float(m.group(6)), float(m.group(8))
                if row in RAW_QD1:
                    fig[(row, alg, size)][(tree, rnd)] = p50
                    call = re.search(r'launch call ([\d.]+)', m.group(10))
                    if call:
                        fig[(row + '-gpu', alg, size)][(tree, rnd)] = \
                            p50 - float(call.group(1))
                elif row == 'helper-qd1':
                    t = 'null' if kind == 'null' else tree
                    fig[('qd1-p50', alg, size)][(t, rnd)] = p50
                    fig[('qd1-cpu', alg, size)][(t, rnd)] = cpu
                elif row == 'helper' and name in ('deep.txt', 'mid.txt'):
                    load = 't16' if name == 'deep.txt' else kind
                    fig[(load + '-Mreq', alg, size)][(tree, rnd)] = rps / 1e6
                    fig[(load + '-cpu', alg, size)][(tree, rnd)] = cpu
    return fig


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('folder')
    ap.add_argument('base')
    ap.add_argument('new')
    ap.add_argument('regex', nargs='?', default='')
    a = ap.parse_args()

    def row(vals):
        return ' '.join('%6.2f' % v if v is not None else '     -' for v in vals)

    for key, v in sorted(read(a.folder).items()):
        if a.regex and not re.search(a.regex, ' '.join(key)):
            continue
        rounds = sorted({r for (_, r) in v}, key=int)
        b = [v.get((a.base, r)) for r in rounds]
        n = [v.get((a.new, r)) for r in rounds]
        d = [y - x for x, y in zip(b, n) if x is not None and y is not None]
        out = '%-16s %-14s %7s | %s: %s | %s: %s' % (
            key[0], key[1], key[2], a.base, row(b), a.new, row(n))
        if d:
            out += ' | d %+.2f..%+.2f, lower in %d/%d' % (
                min(d), max(d), sum(x < 0 for x in d), len(d))
        null = [v.get(('null', r)) for r in rounds]
        if any(x is not None for x in null):
            out += ' | null ' + row(null)
        print(out)


if __name__ == '__main__':
    main()
