#!/usr/bin/env python3
"""Compare two single-signal TREC runs and their fusion against qrels.

  bench/fusion_diag.py DATASET_DIR SPLIT RUN_A RUN_B RUN_FUSED

For every judged (query, relevant document) pair it counts whether run A
or run B ranks the document higher (or both the same), and per query
whether the fused run's nDCG@10 beats run A's. Make the runs with
`enquire-mcp eval DATASET --split SPLIT --signals S --graph-boost=false --run FILE`.
"""
import collections, math, sys


def load_run(path):
    run = collections.defaultdict(list)
    for line in open(path):
        qid, _, doc, _rank, _score, _tag = line.split()
        run[qid].append(doc)
    return run


def load_qrels(path):
    qrels = collections.defaultdict(dict)
    for i, line in enumerate(open(path)):
        parts = line.rstrip('\n').split('\t')
        if i == 0 and not parts[-1].isdigit():
            continue
        qrels[parts[0]][parts[1]] = int(parts[2])
    return qrels


def ndcg10(ranked, rel):
    dcg = sum(rel.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:10]))
    ideal = sorted(rel.values(), reverse=True)[:10]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def main(dataset, split, run_a, run_b, run_f):
    qrels = load_qrels(f'{dataset}/qrels/{split}.tsv')
    a, b, f = load_run(run_a), load_run(run_b), load_run(run_f)
    rank = lambda run, d: run.index(d) + 1 if d in run else 10**9
    same = a_higher = b_higher = fused_better = fused_worse = 0
    for qid, rel in qrels.items():
        na, nf = ndcg10(a[qid], rel), ndcg10(f[qid], rel)
        fused_better += nf > na + 1e-9
        fused_worse += nf < na - 1e-9
        for doc, grade in rel.items():
            if grade <= 0:
                continue
            ra, rb = rank(a[qid], doc), rank(b[qid], doc)
            same += ra == rb
            a_higher += ra < rb
            b_higher += rb < ra
    print(f'relevant pairs {same + a_higher + b_higher}: same rank {same}, '
          f'A higher {a_higher}, B higher {b_higher}; '
          f'fused vs A per query: better {fused_better}, worse {fused_worse}, of {len(qrels)}')


if __name__ == '__main__':
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    main(*sys.argv[1:])
