#!/usr/bin/env python3
"""Writes a judged set (eval.ron) as the syntax before issue 30 could write it, to measure the
ranking before issue 30 beside today's (docs/benchmarks/sentences.md):

    python3 docs/benchmarks/strip_sentence_syntax.py tests/fixtures/nlg-eval-2/eval.ron /tmp/old/eval.ron

The old binary reads the counts named in the file: copy eval.counts.tsv beside it.

Writes the judged set with each state as the syntax before issue 30 could write it: head-verb
modifiers other than PAST dropped, determiners, prepositions and possessors written before a
noun dropped, a name after a noun made a noun of its own. Acceptable lines unchanged."""
import re, sys
DET = set("a an the some any no this that these those every my your his her its our their".split())
PREP = set("to from at in on for with about of into by near under over after before until through across behind".split())
src, dst = sys.argv[1], sys.argv[2]
text = open(src).read()
def verbs(v):
    out = []
    for item in v.split(','):
        toks = [t for t in item.split() if t not in ("NOT","FUTURE","WILL","IMPERATIVE","CAN","COULD","MAY","MIGHT","MUST","SHOULD","WOULD")]
        out.append(' '.join(toks))
    return ', '.join(o for o in out if o)
def nouns(n):
    out = []
    for item in n.split(','):
        toks = item.split()
        q = []
        if 'QUESTION' in toks:
            i = toks.index('QUESTION'); q = toks[i:i+2] if i+1 < len(toks) and toks[i+1].lower() in "when what who whom where why how which".split() else toks[i:i+1]
            toks = toks[:i] + toks[i+len(q):]
        if len(toks) > 1 and toks[0].lower() in PREP: toks = toks[1:]
        if len(toks) > 1 and toks[0].lower() in DET and not (len(toks)==1): toks = toks[1:]
        if toks[:1] == ['VARIABLE'] and len(toks) > 2 and toks[1].endswith("'s"):
            out.append('VARIABLE ' + toks[1][:-2]); toks = toks[2:]
        elif toks and toks[0].endswith("'s") and len(toks) > 1:
            out.append(toks[0][:-2]); toks = toks[1:]
        if 'VARIABLE' in toks and toks.index('VARIABLE') > 0:
            i = toks.index('VARIABLE'); out.append(' '.join(toks[:i])); toks = toks[i:]
        item = ' '.join(toks + q)
        if item: out.append(item)
    return ', '.join(out)
def fix(m):
    return f'verbs: "{verbs(m.group(1))}", nouns: "{nouns(m.group(2))}"'
# The old binary knows no Topic or Duration kind: those slots go undeclared.
text = re.sub(r',?\s*"\w+": (Topic|Duration)', '', text)
text = re.sub(r'verbs: "([^"]*)", nouns: "([^"]*)"', fix, text)
open(dst, 'w').write(text)
