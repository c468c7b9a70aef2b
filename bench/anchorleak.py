#!/usr/bin/env python3
"""How much of the graph boost's gain on a vault-links set is anchor text.

  bench/anchorleak.py VAULT_LINKS_DIR RUN_NO_GRAPH RUN_GRAPH [DEPTH]

A vault-links query is the display text of a piped link [[Target|text]];
its answer is Target. The note holding that link contains the query
words, so the lexical signals rank it high, and the graph boost then
lifts what it links to: the answer. The set's README warns that a
feature built on link text is "handed the answer" there.

For every query this counts whether a note other than the answer that
holds "|<query text>]]" is in RUN_NO_GRAPH's top DEPTH (default 30, the
boost's depth), and whether the boost moved the answer up or down. Make
the runs with
`enquire-mcp eval VAULT_LINKS_DIR --run FILE [--graph-boost=false]`.
"""
import collections, json, os, sys


def load_run(path):
    run = collections.defaultdict(list)
    for line in open(path):
        qid, _, doc, _rank, _score, _tag = line.split()
        run[qid].append(doc.replace('%20', ' '))  # runs escape spaces
    return run


def main():
    ds, no_graph, graph = sys.argv[1:4]
    depth = int(sys.argv[4]) if len(sys.argv) > 4 else 30
    vault = os.path.join(ds, 'vault')
    if os.path.isfile(vault):  # a file naming the vault instead of a link
        vault = os.path.normpath(os.path.join(ds, open(vault).read().strip()))
    answers = {}
    for i, line in enumerate(open(os.path.join(ds, 'qrels', 'test.tsv'))):
        q, doc, _ = line.rstrip('\n').split('\t')
        if i > 0:
            answers[q] = doc
    texts = {}
    for line in open(os.path.join(ds, 'queries.jsonl')):
        d = json.loads(line)
        texts[d['_id']] = d['text'].lower()
    bodies = {}

    def body(path):
        if path not in bodies:
            try:
                bodies[path] = open(os.path.join(vault, path), errors='replace').read().lower()
            except OSError:
                bodies[path] = ''
        return bodies[path]

    a, b = load_run(no_graph), load_run(graph)

    def rank(run, q):
        return run[q].index(answers[q]) + 1 if answers[q] in run[q] else 10**6

    source = up = up_source = down = 0
    for q, ans in answers.items():
        has = any(d != ans and '|' + texts[q] + ']]' in body(d) for d in a[q][:depth])
        source += has
        if rank(b, q) < rank(a, q):
            up += 1
            up_source += has
        elif rank(b, q) > rank(a, q):
            down += 1
    print(f'{len(answers)} queries; the linking note in the top {depth} without the boost: {source}; '
          f'the boost moved the answer up for {up} ({up_source} of them with the linking note there), down for {down}')


if __name__ == '__main__':
    main()
