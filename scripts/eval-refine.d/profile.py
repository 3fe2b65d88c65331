#!/usr/bin/env python3
"""How far inverted output is from the samples (for scripts/eval-refine).

profile.py --hellfuzz HF --grammar G --samples DIR --inputs DIR --count N --label L --work DIR

Prints, as `name: value unit` lines:
- sizes: mean and median bytes of the inputs (all files in --inputs) and of the samples;
- the feature profile: every sample and the first N inputs (sorted by name) are parsed with
  `HF parse G FILE --json`; a feature is a named rule of G (a `name = …` line of the grammar
  file, so not the synthetic symbols of groups and repetitions), and, finer, a rule with the
  alternative taken, and a terminal (a literal or character class of the grammar). It prints how many rules (alternatives) the samples use, how many the
  inputs use, how many of those no sample uses (and their share of the inputs' rules), and the
  mean share, per input, of its distinct rules that no sample uses. An input or sample that
  does not parse (it should not happen: the grammar generated it) is counted and left out.
The trees are read with a regular expression over the JSON text (rule nodes are
`{"symbol":NAME,"kind":"rule","alt":N`), which keeps deep trees cheap.
"""
import argparse
import os
import re
import statistics
import subprocess

NODE = re.compile(rb'\{"symbol":"((?:[^"\\]|\\.)*)","kind":"rule","alt":(\d+)')
LEAF = re.compile(rb'\{"terminal":("(?:[^"\\]|\\.)*")')
RULE = re.compile(r'^([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[[^\]]*\])?\s*=', re.M)


def features(hf, grammar, path, names):
    try:
        out = subprocess.run([hf, 'parse', grammar, path, '--json'], capture_output=True, timeout=120)
    except subprocess.TimeoutExpired:
        return None
    if out.returncode != 0:
        return None
    rules, alts = set(), set()
    for m in NODE.finditer(out.stdout):
        name = m.group(1).decode('utf-8', 'replace')
        if name in names:
            rules.add(name)
            alts.add((name, int(m.group(2))))
    terminals = set(m.group(1) for m in LEAF.finditer(out.stdout))
    return rules, alts, terminals


def files(d):
    return sorted(os.path.join(d, f) for f in os.listdir(d) if os.path.isfile(os.path.join(d, f)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--hellfuzz', required=True)
    ap.add_argument('--grammar', required=True)
    ap.add_argument('--samples', required=True)
    ap.add_argument('--inputs', required=True)
    ap.add_argument('--count', type=int, default=100)
    ap.add_argument('--label', required=True)
    ap.add_argument('--work', required=True)
    a = ap.parse_args()

    names = set(RULE.findall(open(a.grammar, encoding='utf-8').read()))
    samples = files(a.samples)
    inputs = files(a.inputs)
    ssize = [os.path.getsize(f) for f in samples]
    isize = [os.path.getsize(f) for f in inputs]
    L = a.label
    if isize:
        print(f'size {L} inverted: mean {statistics.mean(isize):.1f} bytes, median {statistics.median(isize):.0f} bytes ({len(isize)} files)')
    print(f'size {L} samples: mean {statistics.mean(ssize):.1f} bytes, median {statistics.median(ssize):.0f} bytes ({len(ssize)} files)')

    s_rules, s_alts, s_terms, s_bad = set(), set(), set(), 0
    for f in samples:
        r = features(a.hellfuzz, a.grammar, f, names)
        if r is None:
            s_bad += 1
            continue
        s_rules |= r[0]
        s_alts |= r[1]
        s_terms |= r[2]
    i_rules, i_alts, i_terms, i_bad, shares = set(), set(), set(), 0, []
    for f in inputs[:a.count]:
        r = features(a.hellfuzz, a.grammar, f, names)
        if r is None:
            i_bad += 1
            continue
        i_rules |= r[0]
        i_alts |= r[1]
        i_terms |= r[2]
        if r[0]:
            shares.append(len(r[0] - s_rules) / len(r[0]))
    n = min(a.count, len(inputs))
    new_rules = i_rules - s_rules
    new_alts = i_alts - s_alts
    pct = lambda x, y: 100 * x / y if y else 0
    print(f'profile {L}: grammar {len(names)} named rules; samples use {len(s_rules)} rules, {len(s_alts)} alternatives'
          f'{f" ({s_bad} samples did not parse)" if s_bad else ""}')
    print(f'profile {L} inverted ({n - i_bad} of {n} inputs parsed): use {len(i_rules)} rules, {len(i_alts)} alternatives')
    print(f'novel rules {L}: {len(new_rules)} rules ({pct(len(new_rules), len(i_rules)):.1f} % of those the inverted inputs use) no sample uses')
    print(f'novel alternatives {L}: {len(new_alts)} ({pct(len(new_alts), len(i_alts)):.1f} % of those the inverted inputs use)')
    new_terms = i_terms - s_terms
    print(f'novel terminals {L}: {len(new_terms)} of {len(i_terms)} ({pct(len(new_terms), len(i_terms)):.1f} %) terminals (literals, classes) of the inverted inputs no sample has')
    if shares:
        print(f'novel share per input {L}: {100 * statistics.mean(shares):.1f} % (mean share of an inverted input\'s rules that no sample uses)')
    os.makedirs(a.work, exist_ok=True)
    with open(os.path.join(a.work, 'novel-rules.txt'), 'w') as f:
        f.write('\n'.join(sorted(new_rules)) + '\n')


if __name__ == '__main__':
    main()
