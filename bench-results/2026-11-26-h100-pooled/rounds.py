"""rounds.py - the rounds of a gpu-aes-bench --dispatch JSON, the one
parser pool.py, clean.py and perreq.py share: per (alg, threads), a list
of rounds, each {'cpu': row, 'ring': row, 'auto': row}."""
import json
import re


def rounds(f):
    seq = {}
    for r in json.load(open(f))['results']:
        if r['path'].startswith('dispatch-'):
            n = int(re.match(r'(\d+) thr', r['note']).group(1))
            seq.setdefault((r['alg'], n), []).append(r)
    return {k: [{r['path'][9:]: r for r in rows[i:i + 3]}
                for i in range(0, len(rows), 3)]
            for k, rows in seq.items()}
