#!/usr/bin/env python3
"""Derives the NLG's lexical tables from WordNet 3.0 (Debian's wordnet-base, /usr/share/wordnet).

    python3 compiler/src/nlg/lexicon/derive_wordnet.py /usr/share/wordnet compiler/src/nlg/lexicon

Writes, next to this script:
- verbs.tsv: `lemma<TAB>flags` for every single-word WordNet verb, flags from the verb frames of
  its most frequent senses (WordNet orders senses by frequency):
    T  takes an object in one of its first two senses ("Somebody ----s something/somebody")
    D  takes two objects in one of its first three senses ("Somebody ----s somebody something")
    P  its first sense takes no object ("work", "go", "rest": a noun after it needs a preposition)
- nouns.tsv: `form<TAB>kind`:
    p <base>  an irregular plural ("children" -> child), from noun.exc
    s         a noun ending in -s that is not a plural ("news", "bus"): its -s form is a lemma and
              its stem without -s is not
The compiler includes both files (compiler/src/nlg/lexicon.rs); Python is only needed to
re-derive them. WordNet 3.0 licence: see LICENSE-WordNet in this folder.
"""
import os, sys

WN, OUT = sys.argv[1], sys.argv[2]
TRANSITIVE = {8, 9, 10, 11, 14, 15, 16, 17, 18, 19, 20, 21, 24, 25, 30, 31}


def read_data(path):
    data = {}
    for line in open(path, encoding="latin-1"):
        if line.startswith("  "):
            continue
        parts = line.split(" | ")[0].split()
        wcnt = int(parts[3], 16)
        words = [parts[4 + 2 * i].lower() for i in range(wcnt)]
        i = 4 + 2 * wcnt
        pcnt = int(parts[i])
        i += 1 + 4 * pcnt
        frames = []
        if i < len(parts):
            fcnt = int(parts[i])
            i += 1
            for _ in range(fcnt):
                frames.append((int(parts[i + 1]), int(parts[i + 2], 16)))
                i += 3
        data[parts[0]] = (words, frames)
    return data


def read_index(path):
    index = {}
    for line in open(path, encoding="latin-1"):
        if line.startswith("  "):
            continue
        p = line.split()
        pcnt = int(p[3])
        index[p[0]] = p[4 + pcnt + 2:]
    return index


verbs = read_data(os.path.join(WN, "data.verb"))
vindex = read_index(os.path.join(WN, "index.verb"))


def frames(lemma, sense):
    offs = vindex[lemma]
    if sense >= len(offs):
        return set()
    words, fr = verbs[offs[sense]]
    w = words.index(lemma) + 1 if lemma in words else 0
    return {f for f, wn in fr if wn == 0 or wn == w}


rows = []
for lemma in sorted(vindex):
    if "_" in lemma or "-" in lemma or not lemma.isalpha():
        continue
    f = [frames(lemma, s) for s in range(3)]
    flags = ""
    if (f[0] | f[1]) & TRANSITIVE:
        flags += "T"
    if 14 in (f[0] | f[1] | f[2]):
        flags += "D"
    if f[0] and not f[0] & TRANSITIVE:
        flags += "P"
    if flags:
        rows.append(f"{lemma}\t{flags}")
with open(os.path.join(OUT, "verbs.tsv"), "w") as out:
    out.write("\n".join(rows) + "\n")

nindex = read_index(os.path.join(WN, "index.noun"))
nouns = []
for line in open(os.path.join(WN, "noun.exc"), encoding="latin-1"):
    form, base = line.split()[:2]
    if form.isalpha() and base.isalpha() and form != base:
        nouns.append(f"{form}\tp {base}")
for lemma in sorted(nindex):
    if not lemma.isalpha() or not lemma.endswith("s") or lemma.endswith(("ss", "us", "is")):
        continue
    stems = [lemma[:-1]]
    if lemma.endswith("es"):
        stems.append(lemma[:-2])
    if lemma.endswith("ies"):
        stems.append(lemma[:-3] + "y")
    if not any(s in nindex for s in stems):
        nouns.append(f"{lemma}\ts")
with open(os.path.join(OUT, "nouns.tsv"), "w") as out:
    out.write("\n".join(sorted(nouns)) + "\n")
print(f"{len(rows)} verbs, {len(nouns)} nouns")
