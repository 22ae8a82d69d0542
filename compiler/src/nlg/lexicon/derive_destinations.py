#!/usr/bin/env python3
"""Derives which preposition a word takes before a destination, from the text corpus.

    python3 compiler/src/nlg/lexicon/derive_destinations.py ../shared/data/corpus compiler/src/nlg/lexicon

"go to London" but "leave for London", "start for Paris", "bound for Rome": the counts of the
ranking database are lower-cased, so they cannot tell a place after the preposition from
anything else ("leave to go", "left to himself"). Here the original text is read: every
`word to|for Name` where Name is capitalised and not a title, pronoun or sentence opener
counts for `word` (a verb form for its lemma, by WordNet 3.0's morphy: /usr/share/wordnet).
Writes destinations.tsv: `word<TAB>to<TAB>for` for words seen at least
three times with a preference of two to one or more (the compiler includes it:
compiler/src/nlg/lexicon.rs). Python is only needed to re-derive it.
"""
import collections, glob, os, re, sys

CORPUS, OUT = sys.argv[1], sys.argv[2]
NOT_PLACES = {
    "Mr", "Mrs", "Miss", "Sir", "Lady", "Lord", "God", "I", "The", "A", "An", "He", "She",
    "It", "They", "We", "You", "Dr", "St", "Captain", "Colonel", "General", "Heaven",
    "Providence", "Christ", "Jesus", "This", "That", "His", "Her", "My", "Your", "Our",
    "Their", "Its", "Uncle", "Aunt", "Mother", "Father", "Madame", "Monsieur", "Mme", "King",
    "Queen", "Prince", "Princess", "Professor", "Mademoiselle", "Master", "Mistress",
}
counts = collections.Counter()
pattern = re.compile(r"\b([a-z]+) (to|for) ([A-Z][a-z]+)\b")
for path in sorted(glob.glob(os.path.join(CORPUS, "*.txt"))):
    text = open(path, encoding="utf-8", errors="ignore").read()
    for word, prep, name in pattern.findall(text):
        if name not in NOT_PLACES:
            counts[(word, prep)] += 1
# Verb forms count for their lemma (WordNet's morphy: its exception list, then the suffixes),
# so "left", "leaves" and "leaving" speak for "leave".
WN = "/usr/share/wordnet"
verbs = {l.split()[0] for l in open(os.path.join(WN, "index.verb"), encoding="latin-1") if not l.startswith("  ")}
exceptions = dict(l.split()[:2] for l in open(os.path.join(WN, "verb.exc"), encoding="latin-1"))


def lemma(word):
    if word in exceptions:
        return exceptions[word]
    for suffix, repl in (("ies", "y"), ("es", "e"), ("es", ""), ("s", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", "")):
        if word.endswith(suffix) and word[: -len(suffix)] + repl in verbs:
            return word[: -len(suffix)] + repl
    return word


by_lemma = collections.Counter()
for (word, prep), n in counts.items():
    by_lemma[(lemma(word), prep)] += n
counts = by_lemma
rows = []
for word in sorted({w for w, _ in counts}):
    to, for_ = counts[(word, "to")], counts[(word, "for")]
    if to + for_ >= 3 and (to >= 2 * for_ or for_ >= 2 * to):
        rows.append(f"{word}\t{to}\t{for_}")
with open(os.path.join(OUT, "destinations.tsv"), "w") as out:
    out.write("\n".join(rows) + "\n")
print(f"{len(rows)} words")
