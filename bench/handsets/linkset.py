# Known-item sets from a vault's piped wikilinks, by the method of
# shared/datasets/vault-links/README.md.
import json, os, random, re, sys
from collections import defaultdict
vault, out, seed = sys.argv[1], sys.argv[2], 17
notes = []
for root, dirs, files in os.walk(vault):
    dirs[:] = [d for d in dirs if not d.startswith('.')]
    for f in files:
        if f.endswith('.md') and not f.endswith('.excalidraw.md'):
            notes.append(os.path.relpath(os.path.join(root, f), vault))
by_base = defaultdict(list)
by_path = {}
for n in notes:
    by_base[os.path.basename(n)[:-3].lower()].append(n)
    by_path[n[:-3].lower()] = n
def resolve(t):
    t = t.split('#')[0].split('^')[0].strip()
    if not t: return None
    k = t.lower().removesuffix('.md')
    if k in by_path: return by_path[k]
    c = by_base.get(os.path.basename(k), [])
    return c[0] if len(c) == 1 else None
pairs = defaultdict(set)
for n in notes:
    txt = open(os.path.join(vault, n), encoding='utf-8', errors='replace').read()
    for m in re.finditer(r'(?<!!)\[\[([^\]|]+)\|([^\]]+)\]\]', txt):
        tgt, disp = resolve(m.group(1)), m.group(2).strip()
        if not tgt or tgt == n: continue
        title = os.path.basename(tgt)[:-3].lower()
        d = disp.lower()
        if len(d.split()) < 2: continue
        if d == title or title in d: continue
        pairs[disp].add(tgt)
items = sorted((d, next(iter(t))) for d, t in pairs.items() if len(t) == 1)
random.Random(seed).shuffle(items)
items = items[:300]
os.makedirs(os.path.join(out, 'qrels'), exist_ok=True)
with open(os.path.join(out, 'queries.jsonl'), 'w') as q, open(os.path.join(out, 'qrels/test.tsv'), 'w') as r:
    r.write('query-id\tcorpus-id\tscore\n')
    for i, (d, t) in enumerate(items):
        q.write(json.dumps({'_id': f'l{i}', 'text': d}, ensure_ascii=False) + '\n')
        r.write(f'l{i}\t{t}\t1\n')
if not os.path.exists(os.path.join(out, 'vault')):
    os.symlink(os.path.abspath(vault), os.path.join(out, 'vault'))
print(out, len(items))
