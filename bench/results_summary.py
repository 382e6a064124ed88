#!/usr/bin/env python3
"""A results folder's figures, one line per row, in the order they ran.

    python3 bench/results_summary.py FOLDER

FOLDER holds one or more device calls' results as they came back, one
folder per call (never committed: docs/performance.md says where figures
go).  Reads the bench output each call's run.sh wrote into
FOLDER/N-name/*.txt
("### tree tag" headings before each run) and prints, per file: QD1 p50
and host CPU per request with the waiter's wake-up, raw-qd1 p50 with the
launch call, raw-gpu GB/s (one launch of one segment), the cuda
backend's lone-request breakdown (means, then medians) and time per
batch, and requests/s, GB/s and host CPU per request of every other row
(the ring, the copy bounds, OpenSSL).
"""
import glob
import os
import re
import sys

ROW = re.compile(r'^(helper|helper-qd1|raw-qd1|raw-qd1-zc|raw-qd1-word|'
                 r'raw-gpu|copy-all|copy-dma|copy-pipe|copy-floor|cpu-1|cpu-all)'
                 r'\s+(\S+)\s+'
                 r'(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(.*)$')
# The copy rows name their "algorithm" in two words.
ALG_WORDS = (('2x memcpy+dma', '2x-memcpy+dma'), ('2x memcpy', '2x-memcpy'))
SKIP = ('device.txt', 'log.txt', 'sass.txt')


def runs(path):
    """[(heading, [lines])] in file order; rows printed twice kept once."""
    out, seen = [], set()
    for line in open(path, errors='replace'):
        if line.startswith('###'):
            out.append((line[3:].strip(), []))
            seen = set()
            continue
        if not out:
            out.append(('', []))
        if line in seen:
            continue
        seen.add(line)
        out[-1][1].append(line.rstrip('\n'))
    return out


def show(path, folder):
    print('==', os.path.relpath(path, folder))
    for head, lines in runs(path):
        for line in lines:
            for words, one in ALG_WORDS:
                line = line.replace(words, one)
            m = ROW.match(line)
            if m:
                path_, alg, size = m.group(1), m.group(2), m.group(3)
                rps, p50, cpu = float(m.group(5)), m.group(6), m.group(8)
                note = m.group(10)
                if path_ == 'helper-qd1':
                    w = re.search(r'waiter ran ([\d.]+) us', note)
                    print(f'{head:14s} qd1  {alg:12s} p50 {p50:>6s} us, '
                          f'cpu {cpu:>8s} us/req, waiter '
                          f'{w.group(1) if w else "-"} us')
                elif path_ == 'raw-gpu':
                    print(f'{head:14s} raw-gpu    {alg:15s} {size:>8s} B '
                          f'{m.group(4):>7s} GB/s')
                elif path_.startswith('raw-qd1'):
                    c = re.search(r'launch call ([\d.]+) us', note)
                    print(f'{head:14s} {path_:10s} {alg:12s} p50 {p50:>6s} us'
                          + (f', launch call {c.group(1)} us' if c else ''))
                else:
                    print(f'{head:14s} {path_:8s} {alg:15s} {size:>7s} B '
                          f'{rps / 1e3:9.1f} k req/s, {m.group(4):>6s} GB/s, '
                          f'cpu {cpu:>8s} us/req')
            elif 'per batch: submit' in line:
                print(f'{head:14s}   per batch: ' + line.split('per batch: ')[1])
            elif 'lone requests, medians' in line:
                print(f'{head:14s}   lone, medians: ' +
                      line.split('medians: ')[1])
            elif 'lone requests' in line:
                print(f'{head:14s}   lone, means: ' +
                      line.split('per request: ')[1])


def main():
    if len(sys.argv) == 2 and sys.argv[1] in ('-h', '--help'):
        print(__doc__.strip())
        return 0
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    folder = sys.argv[1]
    files = sorted(glob.glob(os.path.join(folder, '[0-9]-*', '*.txt')))
    if not files:
        print(f'results_summary.py: no N-name/*.txt under {folder}',
              file=sys.stderr)
        return 1
    for f in files:
        name = os.path.basename(f)
        if name not in SKIP and not name.startswith('gpu-check'):
            show(f, folder)
    return 0


if __name__ == '__main__':
    sys.exit(main())
