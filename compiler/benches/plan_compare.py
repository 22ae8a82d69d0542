#!/usr/bin/env python3
"""Side-by-side planner comparison for BENCHMARKS.md ("Planning").

Runs, on the same IPC tasks and in one run: `ensemble plan` (A* with h_max, GBFS with h_ff),
pyperplan (A* with hmax, GBFS with hff) and Fast Downward (A* with hmax, A* with LM-cut as the
optimal reference). Prints a markdown table: plan length, expanded states, wall time of the
whole process (parse + ground + search) per planner.

Usage:
  python3 compiler/benches/plan_compare.py --ensemble target/release/ensemble \
      --python VENV/bin/python --data ../shared/data/pddl --timeout 10 [--tasks 01,03,05]
Python is only needed for this comparison, never for the tests.
"""
import argparse, json, os, re, signal, subprocess, sys, tempfile, time

def run(cmd, timeout, cwd=None):
    """Runs `cmd` in its own process group; on timeout the whole group is killed, so Fast
    Downward's search process (a child of its Python driver) is not left running."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out + err, time.perf_counter() - t0
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return None, "", timeout

def ours(args, dom, prob, search, h):
    code, out, wall = run([args.ensemble, "plan", dom, prob, "--search", search, "--heuristic", h,
                           "--format", "json", "--time-limit", str(args.timeout)], args.timeout + 5)
    if code != 0:
        return None
    j = json.loads(out.splitlines()[0])
    assert j["valid"]
    return dict(length=j["length"], expanded=j["expanded"], wall=wall, search=j["millis"] / 1000)

def pyperplan(args, dom, prob, search, h):
    with tempfile.TemporaryDirectory() as d:
        import shutil
        dd, pp = os.path.join(d, "domain.pddl"), os.path.join(d, "problem.pddl")
        shutil.copy(dom, dd); shutil.copy(prob, pp)
        code, out, wall = run([args.pyperplan, "-s", search, "-H", h, dd, pp], args.timeout)
        if code is None or "Plan length" not in out:
            return None
        length = int(re.search(r"Plan length: (\d+)", out).group(1))
        exp = int(re.search(r"(\d+) Nodes expanded", out).group(1))
        st = float(re.search(r"Search time: ([\d.]+)", out).group(1))
        return dict(length=length, expanded=exp, wall=wall, search=st)

def fd(args, dom, prob, search):
    with tempfile.TemporaryDirectory() as d:
        code, out, wall = run([args.python, args.fd, "--plan-file", os.path.join(d, "plan"),
                               dom, prob, "--search", search], args.timeout, cwd=d)
        m = re.search(r"Plan length: (\d+)", out)
        if code is None or not m:
            return None
        exp = int(re.search(r"Expanded (\d+) state", out).group(1))
        st = float(re.search(r"Search time: ([\d.]+)s", out).group(1))
        return dict(length=int(m.group(1)), expanded=exp, wall=wall, search=st)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ensemble", required=True)
    ap.add_argument("--python", required=True, help="python of the venv with pyperplan and up-fast-downward")
    ap.add_argument("--data", required=True)
    ap.add_argument("--timeout", type=float, default=10)
    ap.add_argument("--tasks", default="01,03,05,07,09,11")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    # Fast Downward runs in a temporary folder: every path must be absolute.
    args.data = os.path.abspath(args.data)
    args.ensemble = os.path.abspath(args.ensemble)
    venv_bin = os.path.dirname(args.python)
    args.pyperplan = os.path.join(venv_bin, "pyperplan")
    # Importing up_fast_downward needs unified-planning; only its bundled driver is used here.
    purelib = subprocess.run([args.python, "-c", "import sysconfig;print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True).stdout.strip()
    args.fd = os.path.join(purelib, "up_fast_downward", "downward", "fast-downward.py")
    assert os.path.exists(args.fd), args.fd
    configs = [
        ("ours A* lmcut", lambda d, p: ours(args, d, p, "astar", "lmcut")),
        ("ours A* hmax", lambda d, p: ours(args, d, p, "astar", "hmax")),
        ("pyperplan A* hmax", lambda d, p: pyperplan(args, d, p, "astar", "hmax")),
        ("FD A* hmax", lambda d, p: fd(args, d, p, "astar(hmax())")),
        ("FD A* lmcut (optimal ref.)", lambda d, p: fd(args, d, p, "astar(lmcut())")),
        ("ours GBFS hff", lambda d, p: ours(args, d, p, "gbfs", "hff")),
        ("pyperplan GBFS hff", lambda d, p: pyperplan(args, d, p, "gbf", "hff")),
        ("FD lazy_greedy hff pref.", lambda d, p: fd(args, d, p, "lazy_greedy([ff()], preferred=[ff()])")),
    ]
    rows = []
    for dom_name in sorted(os.listdir(args.data)):
        dom = os.path.join(args.data, dom_name, "domain.pddl")
        for t in args.tasks.split(","):
            prob = os.path.join(args.data, dom_name, f"task{t}.pddl")
            if not os.path.exists(prob):
                continue
            row = {"task": f"{dom_name}/task{t}"}
            for name, f in configs:
                row[name] = f(dom, prob)
                print(row["task"], name, row[name], file=sys.stderr, flush=True)
            rows.append(row)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    names = [c[0] for c in configs]
    print("| task | " + " | ".join(names) + " |")
    print("|---" * (len(names) + 1) + "|")
    for r in rows:
        cells = []
        for n in names:
            x = r[n]
            cells.append("—" if x is None else f"{x['length']} / {x['expanded']} / {x['wall']:.2f}s")
        print(f"| {r['task']} | " + " | ".join(cells) + " |")
    # Summary: solved counts, optimal-length agreement.
    print()
    for n in names:
        print(f"- {n}: solved {sum(r[n] is not None for r in rows)}/{len(rows)}")
    agree = [(r["task"], r["ours A* hmax"]["length"], r["FD A* lmcut (optimal ref.)"]["length"]) for r in rows
             if r["ours A* hmax"] and r["FD A* lmcut (optimal ref.)"]]
    bad = [a for a in agree if a[1] != a[2]]
    print(f"- ours A* hmax length == FD A* LM-cut optimal length on {len(agree) - len(bad)}/{len(agree)} tasks both solved" +
          (f"; differ: {bad}" if bad else ""))

if __name__ == "__main__":
    main()
