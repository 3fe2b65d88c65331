#!/usr/bin/env python3
"""Helpers of scripts/eval-overrides (see its header).

  overrides.py split HELLFUZZ GRAMMAR_JSON OVERRIDES EXTERNALS RAW_GRAMMAR OUT_DIR
      Splits a hand-written overrides file (hellfuzz grammar format) into its rules and `%`
      directives and classifies each rule: `external` (defined in EXTERNALS: a token of the C
      scanner), `restriction` (replaces a rule of GRAMMAR_JSON, or the layout, in RAW_GRAMMAR,
      the import without overrides) or `helper` (a new rule, or one replacing a rule the import
      derives from a replaced one). For every restriction R it imports GRAMMAR_JSON with
      OUT_DIR/NNN.overrides: EXTERNALS as it is, the raw import's other rules as it has them,
      every helper R reaches (through helpers only: a reference to another restriction keeps
      the imported rule), and R; the grammar goes to OUT_DIR/NNN.grammar. OUT_DIR/rules.tsv has
      one line per rule or directive: NNN, name, class, lines, lines with its helpers, helpers
      (space-separated; `-` for none), users (of a helper: the restrictions and directives
      that reach it), helpers whose definition the import's own rules take too (see `build`),
      and for a restriction `ok` or `import failed: …`. Lines are those with something besides
      a comment.

  overrides.py failed LIST STDERR OUT
      Prints how many of the files listed in LIST (one path a line) `hellfuzz parse -q` reported
      in STDERR (its error lines start with `PATH:`), and writes their paths to OUT.
"""
import json
import os
import re
import subprocess
import sys


def skip_quoted(text, i):
    """The index just past the "…" literal, '…' literal or […] class that starts at `i`
    (backslash escapes inside; an unclosed one ends at the line's end)."""
    close = ']' if text[i] == '[' else text[i]
    i += 1
    n = len(text)
    while i < n and text[i] != close and text[i] != '\n':
        i += 2 if text[i] == '\\' else 1
    return i + 1


def skip_comment(text, i):
    """The index of the line break that ends the `#` comment starting at `i` (or the end)."""
    end = text.find('\n', i)
    return len(text) if end < 0 else end


def items(text):
    """Yields (kind, name, body, item_text) for each rule and directive of a grammar file,
    skipping `#` comments; `;` inside "…", '…' and […] (with backslash escapes) does not end an
    item."""
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif c == '#':
            i = skip_comment(text, i)
        else:
            start = i
            while i < n and text[i] != ';':
                c = text[i]
                if c in '"\'[':
                    i = skip_quoted(text, i)
                elif c == '#':  # a comment inside a rule runs to the end of its line
                    i = skip_comment(text, i)
                else:
                    i += 1
            item = text[start:i + 1]
            i += 1
            if item.startswith('%'):
                name = item[1:].split(None, 1)[0].rstrip(';')
                yield 'directive', '%' + name, item[len(name) + 1:], item
            else:
                head, _, body = item.partition('=')
                yield 'rule', unquote(head.strip().split('[', 1)[0].strip()), body, item


def unquote(name):
    return name[1:-1] if name.startswith('`') and name.endswith('`') else name


def refs(body):
    """The names a rule body (or directive) refers to: identifiers and `backquoted` names outside
    literals, classes, comments, `@left(3)`-style annotations and guard lists."""
    out, i, n = set(), 0, len(body)
    while i < n:
        c = body[i]
        if c in '"\'[':
            i = skip_quoted(body, i)
        elif c == '#':
            i = skip_comment(body, i)
        elif c == '`':
            j = body.index('`', i + 1)
            out.add(body[i + 1:j])
            i = j + 1
        elif c == '@':  # @left(3), @prec(2): an annotation, not a reference
            i += 1
            while i < n and (body[i].isalnum() or body[i] == '_'):
                i += 1
        elif c.isalpha() or c == '_':
            j = i
            while j < n and (body[j].isalnum() or body[j] == '_'):
                j += 1
            out.add(body[i:j])
            i = j
        else:
            i += 1
    return out


def lines(item):
    return sum(1 for l in item.split('\n') if l.strip() and not l.strip().startswith('#'))


def build(hf, json_path, head, texts, own, raw_defs, ext_names, json_rules, out):
    """Imports JSON_PATH into OUT with an overrides file (OUT with the extension .overrides):
    HEAD, then every rule of the raw import as it has it, but for those of TEXTS (name -> rule
    texts: the restriction OWN and its helpers), which come last. The raw import's rules are
    written out so that the import derives no helper rules itself: it makes aliases (such as
    css's `property_name`, `class_name_2`) from the rules that use them, numbered in order, and
    a replaced rule makes none, which would renumber the others or clash with an overrides
    file's helper of the same name. Returns the error (None if the import worked) and the
    helpers that have the name of an alias of the raw import used by rules written as it has
    them: those rules take the helper's definition too (css's `property_name`: `declaration`
    and `last_declaration` both use it)."""
    pinned = [t for n, t in raw_defs.items() if n not in texts and n not in ext_names]
    # The rules of grammar.json that the raw import left out (unreachable) would be converted
    # before being left out, and make aliases too: they get an empty body, unless the
    # restriction uses them.
    used = set().union(*(refs(t.partition('=')[2]) for ts in texts.values() for t in ts))
    pinned += ['%s = "" ;' % n for n in json_rules
               if n not in raw_defs and n not in texts and n not in used]
    shared = sorted(h for h in texts if h != own and h in raw_defs and h not in ext_names
                    and any(h in refs(t.partition('=')[2]) for t in pinned))
    ov = out[:-len('.grammar')] + '.overrides'
    with open(ov, 'w', encoding='utf-8') as f:
        f.write(head + '\n# The raw import\'s rules, as it has them:\n' + '\n'.join(pinned)
                + '\n\n# The restriction measured, with its helpers:\n'
                + '\n'.join(t for ts in texts.values() for t in ts) + '\n')
    run = subprocess.run([hf, 'import', json_path, '--externals', ov, '-o', out],
                         capture_output=True, text=True)
    if run.returncode == 0:
        return None, shared
    errors = [l for l in run.stderr.split('\n') if 'error' in l] or run.stderr.split('\n')
    return ' '.join(errors[:3]).strip(), shared


def split(hf, json_path, overrides, externals, raw, out_dir):
    with open(overrides, encoding='utf-8') as f:
        parsed = list(items(f.read()))
    with open(externals, encoding='utf-8') as f:
        ext_text = f.read()
    ext_names = {name for kind, name, _, _ in items(ext_text) if kind == 'rule'}
    with open(raw, encoding='utf-8') as f:
        raw_items = list(items(f.read()))
    raw_defs = {name: item for kind, name, _, item in raw_items if kind == 'rule'}
    # The rules an overrides file can replace: those of grammar.json, and the layout (`_` of
    # `%layout _ ;` and what it refers to, `_extra`). The import's other rules are aliases it
    # derives from them; the overrides file's definitions of those are helpers.
    with open(json_path, encoding='utf-8') as f:
        json_rules = list(json.load(f)['rules'])
    replaceable = set(json_rules)
    for kind, name, body, _ in raw_items:
        if name == '%layout':
            for gap in refs(body):
                replaceable.add(gap)
                replaceable |= refs(raw_defs.get(gap, '').partition('=')[2])
    # A name defined twice keeps every definition together (the import takes them as one).
    by_name, order = {}, []
    for kind, name, body, item in parsed:
        if name not in by_name:
            order.append(name)
            by_name[name] = {'kind': kind, 'bodies': [], 'items': []}
        by_name[name]['bodies'].append(body)
        by_name[name]['items'].append(item)
    for name in order:
        r = by_name[name]
        if r['kind'] == 'directive':
            r['class'] = 'directive'
        elif name in ext_names:
            r['class'] = 'external'
        elif name in replaceable:
            r['class'] = 'restriction'
        else:
            r['class'] = 'helper'
        r['refs'] = set().union(*(refs(b) for b in r['bodies']))
        r['users'] = []
        r['lines'] = sum(lines(t) for t in r['items'])
    # The helpers each restriction and directive reaches, through helpers only; each restriction
    # imported with them.
    os.makedirs(out_dir, exist_ok=True)
    head = ext_text.rstrip('\n') + '\n'
    for k, name in enumerate(order, 1):
        r = by_name[name]
        r['k'], r['status'], r['shared'] = '%03d' % k, '', []
        if r['class'] not in ('restriction', 'directive'):
            continue
        seen, todo = [], sorted(r['refs'])
        while todo:
            h = todo.pop(0)
            if h in by_name and by_name[h]['class'] == 'helper' and h not in seen and h != name:
                seen.append(h)
                todo.extend(sorted(by_name[h]['refs']))
        if r['class'] == 'restriction':
            texts = {h: by_name[h]['items'] for h in sorted(seen, key=order.index)}
            texts[name] = r['items']
            err, r['shared'] = build(hf, json_path, head, texts, name, raw_defs, ext_names,
                                     json_rules, os.path.join(out_dir, r['k'] + '.grammar'))
            r['status'] = 'import failed: ' + err if err else 'ok'
        r['helpers'] = seen
        for h in seen:
            by_name[h]['users'].append(name)
    with open(os.path.join(out_dir, 'rules.tsv'), 'w', encoding='utf-8') as tsv:
        for name in order:
            r = by_name[name]
            helpers = r.get('helpers', [])
            total = r['lines'] + sum(by_name[h]['lines'] for h in helpers)
            # `-` for an empty field: a shell's `read` would merge two tabs.
            tsv.write('\t'.join([r['k'], name, r['class'], str(r['lines']), str(total),
                                 ' '.join(helpers) or '-', ' '.join(r['users']) or '-',
                                 ' '.join(r['shared']) or '-', r['status'] or '-']) + '\n')


def failed(list_path, stderr_path, out_path):
    with open(list_path, encoding='utf-8') as f:
        want = {l.rstrip('\n') for l in f if l.strip()}
    bad = set()
    with open(stderr_path, encoding='utf-8', errors='replace') as f:
        for line in f:
            for i, c in enumerate(line):
                if c == ':' and line[:i] in want:
                    bad.add(line[:i])
                    break
    with open(out_path, 'w', encoding='utf-8') as f:
        f.write(''.join(p + '\n' for p in sorted(bad)))
    print(len(bad))


if __name__ == '__main__':
    if len(sys.argv) == 8 and sys.argv[1] == 'split':
        split(*sys.argv[2:])
    elif len(sys.argv) == 5 and sys.argv[1] == 'failed':
        failed(*sys.argv[2:])
    else:
        sys.exit(__doc__)
