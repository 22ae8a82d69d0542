#!/usr/bin/env python3
"""Generates larger planning tasks of growing size for the planner comparison
(docs/benchmarks/planning.md): blocksworld, logistics and gripper, in the IPC domains of
shared/data/pddl or compiler/tests/data/ipc (the domain files are copied from there, so the
problems use exactly their predicates).

Usage:
  python3 compiler/benches/plan_generate.py --data ../shared/data/pddl --out /tmp/plan-generated
Writes OUT/<domain>/domain.pddl and OUT/<domain>/taskNN.pddl (deterministic: seeded per task),
in the layout plan_compare.py reads. Python is only needed for benchmarks, never for the tests.
"""
import argparse, os, random, shutil

# (size parameters) per generated task, smallest first.
BLOCKS = [8, 10, 12, 14, 16, 20]
GRIPPER = [12, 16, 20, 30, 40]
# (cities, locations per city besides the airport, airplanes, packages)
LOGISTICS = [(4, 2, 1, 8), (5, 2, 2, 12), (6, 2, 2, 16), (8, 2, 3, 20)]


def towers(rng, blocks):
    """A random arrangement of `blocks` into towers: a list of towers, bottom first."""
    order = blocks[:]
    rng.shuffle(order)
    out = []
    for b in order:
        if out and rng.random() < 0.6:
            rng.choice(out).append(b)
        else:
            out.append([b])
    return out


def blocks_task(n, seed):
    rng = random.Random(seed)
    names = [f"b{i}" for i in range(1, n + 1)]
    init, goal = towers(rng, names), towers(rng, names)
    facts = ["(HANDEMPTY)"]
    for t in init:
        facts.append(f"(ONTABLE {t[0]})")
        facts += [f"(ON {t[i + 1]} {t[i]})" for i in range(len(t) - 1)]
        facts.append(f"(CLEAR {t[-1]})")
    goals = [f"(ON {t[i + 1]} {t[i]})" for t in goal for i in range(len(t) - 1)]
    goals += [f"(ONTABLE {t[0]})" for t in goal]
    return (f"(define (problem blocks-{n}-{seed})\n(:domain BLOCKS)\n"
            f"(:objects {' '.join(names)} - block)\n(:INIT {' '.join(facts)})\n"
            f"(:goal (AND {' '.join(goals)}))\n)\n")


def gripper_task(n):
    balls = [f"ball{i}" for i in range(1, n + 1)]
    init = ["(room rooma)", "(room roomb)", "(at-robby rooma)", "(free left)", "(free right)",
            "(gripper left)", "(gripper right)"]
    init += [f"(ball {b})" for b in balls] + [f"(at {b} rooma)" for b in balls]
    goal = [f"(at {b} roomb)" for b in balls]
    return (f"(define (problem gripper-{n})\n(:domain gripper-strips)\n"
            f"(:objects rooma roomb left right {' '.join(balls)})\n"
            f"(:init {' '.join(init)})\n(:goal (and {' '.join(goal)})))\n")


def logistics_task(cities, locs, planes, packages, seed):
    rng = random.Random(seed)
    cs = [f"cit{c}" for c in range(1, cities + 1)]
    apts = [f"apt{c}" for c in range(1, cities + 1)]
    poss = [[f"pos{c}-{l}" for l in range(1, locs + 1)] for c in range(1, cities + 1)]
    trucks = [f"tru{c}" for c in range(1, cities + 1)]
    apns = [f"apn{p}" for p in range(1, planes + 1)]
    pkgs = [f"obj{p}" for p in range(1, packages + 1)]
    places = [(ci, p) for ci in range(cities) for p in poss[ci] + [apts[ci]]]
    init = []
    for ci in range(cities):
        init += [f"(in-city {p} {cs[ci]})" for p in poss[ci] + [apts[ci]]]
        init.append(f"(at {trucks[ci]} {rng.choice(poss[ci] + [apts[ci]])})")
    init += [f"(at {a} {rng.choice(apts)})" for a in apns]
    init += [f"(at {p} {rng.choice(places)[1]})" for p in pkgs]
    goal = [f"(at {p} {rng.choice(places)[1]})" for p in pkgs]
    objects = (f"{' '.join(apns)} - airplane\n {' '.join(apts)} - airport\n"
               f" {' '.join(p for ps in poss for p in ps)} - location\n {' '.join(cs)} - city\n"
               f" {' '.join(trucks)} - truck\n {' '.join(pkgs)} - package")
    return (f"(define (problem logistics-{cities}-{packages}-{seed})\n(:domain logistics)\n"
            f"(:objects\n {objects})\n(:init {' '.join(init)})\n(:goal (and {' '.join(goal)}))\n)\n")


def write(out, domain, data, tasks):
    d = os.path.join(out, f"gen-{domain}")
    os.makedirs(d, exist_ok=True)
    shutil.copy(os.path.join(data, domain, "domain.pddl"), os.path.join(d, "domain.pddl"))
    for i, text in enumerate(tasks, 1):
        with open(os.path.join(d, f"task{i:02}.pddl"), "w") as fh:
            fh.write(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True, help="shared/data/pddl (for the domain files)")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    write(a.out, "blocks", a.data, [blocks_task(n, seed=n) for n in BLOCKS])
    write(a.out, "gripper", a.data, [gripper_task(n) for n in GRIPPER])
    write(a.out, "logistics", a.data,
          [logistics_task(c, l, p, k, seed=c * 100 + k) for c, l, p, k in LOGISTICS])
    print(a.out)


if __name__ == "__main__":
    main()
