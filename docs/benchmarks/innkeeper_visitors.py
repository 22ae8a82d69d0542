#!/usr/bin/env python3
"""Runs a visitor set through the innkeeper: one conversation per evening.
usage (from the repository root): python3 docs/benchmarks/innkeeper_visitors.py ENSEMBLE_BIN SET_DIR [--diff]
What the judges of tests/fixtures/innkeeper-visitors*/ read; tests/innkeeper.rs checks the same replies.
Prints evening<TAB>line<TAB>reply; with --diff only rows whose reply differs from judged.tsv,
with the old reply and verdict."""
import json, subprocess, sys, tempfile, os
bin_, d = sys.argv[1], sys.argv[2]
diff = "--diff" in sys.argv
evenings = []
for line in open(os.path.join(d, "evenings.txt")):
    line = line.rstrip("\n")
    if line.startswith("# evening") or not evenings:
        evenings.append([])
    if line.strip() and not line.startswith("#"):
        evenings[-1].append(line)
evenings = [e for e in evenings if e]
judged = []
if diff:
    judged = [l.rstrip("\n").split("\t") for l in open(os.path.join(d, "judged.tsv")) if l.strip() and not l.startswith("#")]
k = 0
for n, ev in enumerate(evenings, 1):
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(ev) + "\n")
    out = subprocess.run([bin_, "run", "samples/innkeeper", "--scene", "chat", "--input", f.name, "--seed", "7", "--trace", "json"], capture_output=True, text=True)
    os.unlink(f.name)
    rows = []
    for l in out.stdout.splitlines():
        e = json.loads(l)
        if e["event"] == "input":
            rows.append([e["text"], []])
        elif e["event"] == "output":
            emote = e["emote"]
            said = f'{e["action"]}: ' + (f"[{emote}] " if emote else "") + e["text"]
            rows[-1][1].append(" ".join(said.split()))
    for line, replies in rows:
        reply = " / ".join(replies)
        if diff:
            j = judged[k]
            if j[2] != reply:
                print(f"{n}\t{line}\n   NEW {reply}\n   OLD {j[2]}  [{j[3]}]")
        else:
            print(f"{n}\t{line}\t{reply}")
        k += 1
