# Counts the public API in rustdoc's JSON output (argument: target/doc/hellfuzz.json): items by kind,
# and the paths a user can name module-level items by (re-exports included).
import json, sys, collections
d = json.load(open(sys.argv[1]))
idx = d['index']
def kind(it): return next(iter(it['inner']))
local = {k: v for k, v in idx.items() if v['crate_id'] == 0}
# Items of trait impls (fmt, from, ...) are the trait's API, not ours: counted out, with the impls.
trait_impl_items, inherent = set(), set()
for v in local.values():
    if kind(v) == 'impl':
        imp = v['inner']['impl']
        (trait_impl_items if imp.get('trait') else inherent).update(map(str, imp['items']))
counts = collections.Counter()
for k, v in local.items():
    kd = kind(v)
    if kd in ('impl', 'use') or k in trait_impl_items:
        continue
    counts['method' if (kd == 'function' and k in inherent) else kd] += 1
# Paths: walk the public modules from the root, following re-exports, and count the paths that
# lead to each item; an item with two paths (module::sub::X and module::X) is counted twice.
paths = collections.Counter()
def walk(mod_id, prefix, seen):
    for child in idx[str(mod_id)]['inner']['module']['items']:
        c = idx.get(str(child))
        if c is None: continue
        kd = kind(c)
        if kd == 'use':
            u = c['inner']['use']
            tgt = u.get('id')
            if tgt is None or str(tgt) not in idx or idx[str(tgt)]['crate_id'] != 0: continue
            t = idx[str(tgt)]
            if kind(t) == 'module' and not u.get('is_glob'):
                if tgt not in seen: walk(tgt, prefix + '::' + u['name'], seen | {tgt})
            elif u.get('is_glob'):
                continue
            else:
                paths[str(tgt)] += 1
        elif kd == 'module':
            if child not in seen: walk(child, prefix + '::' + c['name'], seen | {child})
        elif kd != 'impl':
            paths[str(child)] += 1
walk(d['root'], 'hellfuzz', {d['root']})
total = sum(counts.values())
for kd, n in sorted(counts.items()): print(f"rustdoc {kd}: {n} items")
print(f"rustdoc items (types, traits, functions, methods, fields, variants, constants, modules, macros): {total} items")
print(f"rustdoc module-level items: {len(paths)} items")
print(f"rustdoc paths to module-level items: {sum(paths.values())} paths")
print(f"rustdoc module-level items with more than one path: {sum(1 for n in paths.values() if n > 1)} items")
