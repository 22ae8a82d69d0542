#!/usr/bin/env python3
"""Derives the related-words table HMM spaces understand players' words through.

    python3 compiler/src/related/derive_related.py /usr/share/wordnet ../shared/data compiler/src/related

A designer writes "tired" in a concept or "hello" in a pattern; a player types "weary" or
"howdy". From WordNet 3.0 (Debian's wordnet-base), for every word in the vocabulary players
use — words seen at least three times in the chat corpus or five times in the book corpus of
shared/data — the words it stands for:
- its synonyms in its most frequent sense of each part of speech (WordNet orders senses by
  frequency), and the "similar to" adjectives of its first adjective sense, each only where
  that sense is the synonym's most frequent too: "tired" -> "weary", "hello" ->
  "howdy"; "lord" is not "creator" (a creator is first a maker of things); and only where
  the corpora use the two alike (below);
- every kind of its first noun sense (all the hyponyms below it), each only where that is the
  kind's own most frequent sense and it is mostly a noun: "person" -> "king", "thief";
  "beer" -> "ale", "lager" — those seen at least eight times in all, at most 2,000;
A concept that declares `kinds` takes the kinds column of those words ("person": every kind of
person).
Only vocabulary words are kept on either side. Writes related.tsv:
`word<TAB>synonyms<TAB>kinds (all hyponyms)`, each space-separated. Synonyms are what a word
stands for by default; kinds only for a concept that declares `kinds` (first senses are often
not a game's: "room" has kinds "bar" and "bath").
The compiler includes it (compiler/src/related.rs); Python is only needed to re-derive
it. WordNet's licence: compiler/src/nlg/lexicon/LICENSE-WordNet.
"""
import collections, glob, math, os, re, sys

import snowballstemmer  # pip install snowballstemmer: Porter2, the runtime's stemmer

WN, DATA, OUT = sys.argv[1], sys.argv[2], sys.argv[3]

vocab = collections.Counter()
chat = collections.Counter()
for line in open(os.path.join(DATA, "chat-corpus", "chitchat.txt"), encoding="utf-8", errors="ignore"):
    chat.update(re.findall(r"[a-z]+", line.lower()))
books = collections.Counter()
for path in glob.glob(os.path.join(DATA, "corpus", "*.txt")):
    books.update(re.findall(r"[a-z]+", open(path, encoding="utf-8", errors="ignore").read().lower()))
words = {w for w, n in chat.items() if n >= 3} | {w for w, n in books.items() if n >= 5}
words = {w for w in words if len(w) > 1}

POS = {"n": "noun", "v": "verb", "a": "adj"}


def read_data(pos):
    data = {}
    for line in open(os.path.join(WN, "data." + POS[pos]), encoding="latin-1"):
        if line.startswith("  "):
            continue
        parts = line.split(" | ")[0].split()
        wcnt = int(parts[3], 16)
        lemmas = [parts[4 + 2 * i].lower() for i in range(wcnt)]
        lemmas = [re.sub(r"\(.*\)$", "", l) for l in lemmas]
        i = 4 + 2 * wcnt
        pcnt = int(parts[i])
        ptrs = []
        for k in range(pcnt):
            sym, off, ppos = parts[i + 1 + 4 * k], parts[i + 2 + 4 * k], parts[i + 3 + 4 * k]
            ptrs.append((sym, off, ppos))
        # A slur is no kind of person a game should understand as one.
        if re.search(r"\bslur\b|offensive (term|name)", line.split(" | ", 1)[-1]):
            lemmas = []
        data[parts[0]] = (lemmas, ptrs)
    return data


def read_index(pos):
    index, tagged = {}, {}
    for line in open(os.path.join(WN, "index." + POS[pos]), encoding="latin-1"):
        if line.startswith("  "):
            continue
        p = line.split()
        pcnt = int(p[3])
        index[p[0]] = p[4 + pcnt + 2:]
        tagged[p[0]] = int(p[4 + pcnt + 1])
    return index, tagged


data = {p: read_data(p) for p in POS}
index, tagged = {}, {}
for p in POS:
    index[p], tagged[p] = read_index(p)

# The runtime compares words by their Porter2 stem (Snowball's English stemmer, as
# `rust-stemmers`): a related word whose stem is another word of the vocabulary would match that
# word too ("helping" is "help", "ravenous" is "raven"), so it is left out.
STEM = snowballstemmer.stemmer("english")


def collides(w):
    stem = STEM.stemWord(w)
    return stem != w and stem in words


def mostly_noun(w):
    """Whether w is used as a noun more than as a verb or an adjective (WordNet's sense-tagged
    counts): a kind of person must be a person first ("have", a rich person, is a verb)."""
    noun = tagged["n"].get(w, 0)
    other = max(tagged["v"].get(w, 0), tagged["a"].get(w, 0))
    # Untagged words (most rare ones) count as nouns unless they are also verbs.
    return noun > other or (noun == other and w not in index["v"])


def single(ls):
    return [l for l in ls if l.isalpha()]


# Distributional check of synonyms: PPMI-weighted context vectors (two words either side, the
# 3,000 most frequent words as contexts) over both corpora. WordNet's first senses are not a
# game's ("good" -> "bully", "tasty" -> "acrid", "stew" -> "fret"); a synonym is kept only if
# the two words are also used alike (cosine at least SIMILAR).
SIMILAR = 0.12
tokens = re.findall(r"[a-z]+", open(os.path.join(DATA, "chat-corpus", "chitchat.txt"), encoding="utf-8", errors="ignore").read().lower())
for path in sorted(glob.glob(os.path.join(DATA, "corpus", "*.txt"))):
    tokens += re.findall(r"[a-z]+", open(path, encoding="utf-8", errors="ignore").read().lower())
freq = collections.Counter(tokens)
contexts = {w: i for i, (w, _) in enumerate(freq.most_common(3000))}
context_counts = collections.defaultdict(collections.Counter)
for i, w in enumerate(tokens):
    if w not in words:
        continue
    for j in (i - 2, i - 1, i + 1, i + 2):
        if 0 <= j < len(tokens) and tokens[j] in contexts:
            context_counts[w][tokens[j]] += 1
total = sum(freq.values())
vectors = {}


def vector(w):
    if w not in vectors:
        counts = context_counts.get(w, {})
        n = sum(counts.values()) or 1
        v = {c: math.log((k / n) / (freq[c] / total)) for c, k in counts.items()}
        v = {c: x for c, x in v.items() if x > 0}
        norm = math.sqrt(sum(x * x for x in v.values())) or 1
        vectors[w] = {c: x / norm for c, x in v.items()}
    return vectors[w]


def similar(a, b):
    va, vb = vector(a), vector(b)
    return sum(x * vb.get(c, 0.0) for c, x in va.items()) >= SIMILAR


# Kinds are walked transitively ("person" has thousands in the vocabulary): only the words
# players actually use often enough to matter are kept, so a concept's kinds stay a few hundred.
COMMON = 8


def common(w):
    return w in words and chat[w] + books[w] >= COMMON


# Kinds: every lemma below a synset, walking synsets (not words: "ruler" is first a measuring
# stick, but the sovereign synset below "person" still leads to "king"). A lemma counts only where
# a synset below is its own most frequent noun sense and it is mostly a noun ("baron" is a kind
# of person; "have", a rich person, is a verb first). A word with more than MAX_KINDS kinds
# ("entity", "object") gets none: it is too general to name a topic.
MAX_KINDS = 2000
_below = {}


def below(off):
    """Every synset below `off` (hyponyms, transitively), itself included."""
    if off not in _below:
        seen, stack = {off}, [off]
        while stack:
            for sym, o, p in data["n"][stack.pop()][1]:
                if sym == "~" and p == "n" and o not in seen:
                    seen.add(o)
                    stack.append(o)
        _below[off] = seen
    return _below[off]


def kinds_of(off):
    synsets = below(off)
    if len(synsets) > 20000:
        return []
    out = set()
    for o in synsets:
        if o == off:
            continue
        for l in single(data["n"][o][0]):
            first = (index["n"].get(l) or [None])[0]
            if first in synsets and common(l) and mostly_noun(l):
                out.add(l)
    return sorted(out)


rows = []
for w in sorted(words):
    synonyms, kinds = [], []
    for pos in POS:
        offs = index[pos].get(w)
        if not offs:
            continue
        lemmas, ptrs = data[pos][offs[0]]
        # A synonym counts only when this sense is its most frequent one too: "lord" and
        # "creator" share God, but a creator is first a person who makes things.
        first = lambda l: (index[pos].get(l) or [None])[0]
        synonyms += [l for l in single(lemmas) if first(l) == offs[0]]
        for sym, off, ppos in ptrs:
            target = data[pos].get(off) if ppos == pos or (pos == "a" and ppos == "s") else None
            if not target:
                continue
            if pos == "a" and sym == "&":
                synonyms += [l for l in single(target[0]) if first(l) == off]
    if "n" in POS and index["n"].get(w):
        kinds = kinds_of(index["n"][w][0])
    synonyms = sorted(
        {r for r in synonyms if r in words and r != w and not collides(r) and similar(w, r)}
    )
    kinds = sorted({r for r in kinds if common(r) and r != w and r not in synonyms and not collides(r)})
    if len(kinds) > MAX_KINDS:
        kinds = []
    # Every noun of the vocabulary has a row, so that `kinds: ["cheese"]` is known even where it
    # has no common kinds (a typo is an error; an empty word a warning).
    if synonyms or kinds or index["n"].get(w):
        rows.append(f"{w}\t{' '.join(synonyms)}\t{' '.join(kinds)}")
with open(os.path.join(OUT, "related.tsv"), "w") as out:
    out.write("\n".join(rows) + "\n")
print(f"{len(words)} words, {len(rows)} rows")

# The nouns of the vocabulary (mostly used as nouns, WordNet's sense-tagged counts): an
# HMM space's `Unheard` tracker takes a word it knows nothing of for the thing a line is about
# only when it is one of these ("the old bell": "bell", not "old"). Compiled into a program
# only when a tracker reads it.
tagged["r"] = {}
for line in open(os.path.join(WN, "index.adv"), encoding="latin-1"):
    if not line.startswith("  "):
        p = line.split()
        tagged["r"][p[0]] = int(p[4 + int(p[3]) + 1])
only_noun = lambda w: all(w not in tagged[p] for p in ("v", "a", "r"))


def noun_first(w):
    """Used as a noun, in WordNet's sense-tagged counts, more than as anything else: "end",
    "bell"; not "there" (an adverb), "whole" or "local" (adjectives), "take" (a verb). A word
    too rare to be tagged counts when WordNet has it only as a noun ("saffron")."""
    noun = tagged["n"].get(w, 0)
    if noun == 0:
        return only_noun(w)
    return all(noun > tagged[p].get(w, 0) for p in ("v", "a", "r"))


nouns = [w for w in sorted(words) if w.isalpha() and len(w) > 2 and index["n"].get(w) and noun_first(w)]
with open(os.path.join(OUT, "nouns.txt"), "w") as out:
    out.write("\n".join(nouns) + "\n")
print(f"{len(nouns)} nouns")


# The real words of the vocabulary (`words.txt`): corpus words WordNet knows in some inflection
# (its "morphy": the exception lists, then the regular endings), and the closed-class words it
# leaves out. A word a player typed that is one of these is read as typed, never as a slip of
# the keys for a word the designer wrote ("most" is no slip for "moist", "scary" none for a
# "scar"). A rare word stays out, so a common slip still reads right ("wether": "weather").
lemmas = {p: set(index[p]) for p in POS}
lemmas["r"] = set(tagged["r"])
exceptions = {}
for p, name in (("n", "noun"), ("v", "verb"), ("a", "adj"), ("r", "adv")):
    exceptions[p] = set()
    for line in open(os.path.join(WN, name + ".exc"), encoding="latin-1"):
        exceptions[p].add(line.split()[0])
ENDINGS = {
    "n": [("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"), ("men", "man"), ("ies", "y")],
    "v": [("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", "")],
    "a": [("er", ""), ("est", ""), ("er", "e"), ("est", "e")],
    "r": [],
}
CLOSED = set("""a an the i me my mine myself you your yours yourself he him his himself she her hers
herself it its itself we us our ours they them their theirs this that these those who whom whose
which what where when why how and or but nor if then so than as of at by for from in into on onto
to with without about over under up down out off again once here there all any both each few more
most other some such no not only own same too very can will just should would could might must
shall may am is are was were be been being have has had having do does did doing done let lets
yes yeah okay ok hello hi hey bye thanks please sorry oh ah aye nay""".split())


def real(w):
    for p in lemmas:
        if w in lemmas[p] or w in exceptions[p]:
            return True
        for end, base in ENDINGS[p]:
            if w.endswith(end) and w[: len(w) - len(end)] + base in lemmas[p]:
                return True
    for end in ("ed", "ing", "er", "est"):
        # "stopped", "running", "bigger": the doubled consonant.
        if w.endswith(end) and len(w) > len(end) + 2 and w[-len(end) - 1] == w[-len(end) - 2]:
            if w[: -len(end) - 1] in lemmas["v"] | lemmas["a"]:
                return True
    return w.endswith("ly") and (w[:-2] in lemmas["a"] or w[:-3] + "y" in lemmas["a"])


real_words = sorted(w for w in words if w.isalpha() and (w in CLOSED or real(w)))
with open(os.path.join(OUT, "words.txt"), "w") as out:
    out.write("\n".join(real_words) + "\n")
print(f"{len(real_words)} real words")
