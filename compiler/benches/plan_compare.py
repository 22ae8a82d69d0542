#!/usr/bin/env python3
"""Side-by-side planner comparison for BENCHMARKS.md (docs/benchmarks/planning.md).

Runs, on the same tasks and in one run, one process per (task, planner), sequentially:
  - ours: `ensemble plan --search astar` (LM-cut) and `--search gbfs` (the satisficing search),
    each with `--time-limit` = the timeout; every plan of ours is validated step by step by the
    CLI (its JSON says "valid"; an invalid plan aborts this script);
  - Fast Downward (from the `up-fast-downward` wheel): `astar(lmcut())` and `--alias lama-first`;
  - pyperplan: greedy best-first with hFF and A* with LM-cut.
Every peer's plan is checked step by step too, by `ensemble plan --validate` (an invalid plan
aborts this script as well), so every length in the table is that of a valid plan.
Per cell: plan length / expanded states / pure search time / peak RSS. Search times are what
each planner reports for its search alone (ours: "millis" of the JSON, the search after parsing and
grounding; Fast Downward: "Search time"; pyperplan: "Search time"). Peak RSS is the whole
process tree's (wait4; Fast Downward's is its search component's own "Peak memory").
On a timeout the planner's whole process group is killed, so no orphaned search process loads
later measurements.

The peers are installed by this script into a venv it creates (`--venv`, default
/tmp/ensemble-plan-venv; `pip install pyperplan up-fast-downward`). Python and the peers are
only needed for this comparison, never for the tests.

Usage:
  python3 compiler/benches/plan_generate.py --data ../shared/data/pddl --out /tmp/plan-generated
  python3 compiler/benches/plan_compare.py --ensemble target/release/ensemble \
      --data ../shared/data/pddl --data /tmp/plan-generated --timeout 30 [--tasks 01,03,05]
      [--configs "ours A*,FD A* lmcut"] [--json out.json]
"""
import argparse, json, os, re, shutil, signal, subprocess, sys, tempfile, time

PEERS = ["pyperplan==2.1", "up-fast-downward==1.0.0"]


def ensure_venv(venv):
    """The venv with the peers, created and filled on first use."""
    python = os.path.join(venv, "bin", "python")
    if not os.path.exists(python):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    have = subprocess.run([python, "-m", "pip", "show", "pyperplan", "up-fast-downward"],
                          capture_output=True, text=True).stdout.count("Name:")
    if have < 2:
        subprocess.run([python, "-m", "pip", "install", "-q"] + PEERS, check=True)
    return python


TIME = "/usr/bin/time"


def run(cmd, timeout, cwd=None):
    """Runs `cmd` in its own process group, output to files (no pipe can fill up). Returns
    (exit code or None on timeout, output, wall seconds, peak RSS in KB of the process tree).
    On timeout the whole group is killed, children included. The peak RSS is GNU time's when
    it is installed: a child forked from this Python process starts its peak at Python's own
    size (about 15 MB), which would hide a small planner's."""
    if os.path.exists(TIME):
        cmd = [TIME, "-f", "peak-rss-kb %M"] + cmd
    with tempfile.TemporaryFile("w+") as out:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, text=True, cwd=cwd,
                             start_new_session=True)
        code, rss = None, 0
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                code, rss = os.waitstatus_to_exitcode(status), ru.ru_maxrss
                break
            if time.perf_counter() - t0 > timeout:
                os.killpg(p.pid, signal.SIGKILL)
                _, _, ru = os.wait4(p.pid, 0)
                rss = ru.ru_maxrss
                break
            time.sleep(0.005)
        wall = time.perf_counter() - t0
        p.returncode = code if code is not None else -9  # reaped here, not by Popen
        try:
            os.killpg(p.pid, signal.SIGKILL)  # anything the planner left behind
        except ProcessLookupError:
            pass
        out.seek(0)
        text = out.read()
        m = re.search(r"peak-rss-kb (\d+)", text)
        return code, text, wall, int(m.group(1)) if m else rss


def ours(args, dom, prob, search):
    code, out, wall, rss = run([args.ensemble, "plan", dom, prob, "--search", search,
                                "--format", "json", "--time-limit", str(args.timeout)],
                               args.timeout + 10)
    if code != 0:
        return None
    j = json.loads(next(l for l in out.splitlines() if l.startswith("{")))
    if not j["valid"]:
        sys.exit(f"INVALID plan of ours on {prob} ({search}): {j}")
    search_s = j["millis"] / 1000  # search alone; "ground_millis" is the rest
    return dict(length=j["length"], expanded=j["expanded"], wall=wall, search=search_s, rss=rss)


def pyperplan(args, dom, prob, search, h):
    with tempfile.TemporaryDirectory() as d:
        # pyperplan writes its plan beside the problem: work on copies.
        dd, pp = os.path.join(d, "domain.pddl"), os.path.join(d, "problem.pddl")
        shutil.copy(dom, dd)
        shutil.copy(prob, pp)
        code, out, wall, rss = run([args.pyperplan, "-s", search, "-H", h, dd, pp], args.timeout)
        m = re.search(r"Plan length: (\d+)", out)
        if code != 0 or not m:
            return None
        check_plan(args, dom, prob, pp + ".soln", int(m.group(1)), "pyperplan")
        exp = int(re.search(r"(\d+) Nodes expanded", out).group(1))
        st = float(re.search(r"Search time: ([\d.eE+-]+)", out).group(1))
        return dict(length=int(m.group(1)), expanded=exp, wall=wall, search=st, rss=rss)


def fd(args, dom, prob, search):
    with tempfile.TemporaryDirectory() as d:
        code, out, wall, rss = run([args.python, args.fd, "--plan-file", os.path.join(d, "plan")]
                                   + fd_args(dom, prob, search), args.timeout, cwd=d)
        m = re.search(r"Plan length: (\d+)", out)
        if code != 0 or not m:
            return None
        check_plan(args, dom, prob, os.path.join(d, "plan"), int(m.group(1)), "Fast Downward")
        exp = int(re.search(r"Expanded (\d+) state", out).group(1))
        st = float(re.search(r"Search time: ([\d.]+)s", out).group(1))
        peak = re.search(r"Peak memory: (\d+) KB", out)
        return dict(length=int(m.group(1)), expanded=exp, wall=wall, search=st,
                    rss=int(peak.group(1)) if peak else rss)


def check_plan(args, dom, prob, plan, length, who):
    """Replays a peer's plan with `ensemble plan --validate`; stops the script if it fails."""
    out = subprocess.run([args.ensemble, "plan", dom, prob, "--validate", plan, "--format", "json"],
                         capture_output=True, text=True)
    j = json.loads(next((l for l in out.stdout.splitlines() if l.startswith("{")), "{}"))
    if not j.get("valid") or j.get("length") != length:
        sys.exit(f"INVALID plan of {who} on {prob}: {j or out.stderr}")


def fd_args(dom, prob, search):
    if search.startswith("--alias"):
        return search.split() + [dom, prob]
    return [dom, prob, "--search", search]


def tasks(args):
    for data in args.data:
        for dom_name in sorted(os.listdir(data)):
            dom = os.path.join(data, dom_name, "domain.pddl")
            if not os.path.exists(dom):
                continue
            names = sorted(f for f in os.listdir(os.path.join(data, dom_name)) if f.startswith("task"))
            for t in names:
                if dom_name.startswith("gen-") or args.tasks == "all" or t[4:6] in args.tasks.split(","):
                    yield f"{dom_name}/{t[:-5]}", dom, os.path.join(data, dom_name, t)


def cell(x):
    if x is None:
        return "—"
    return f"{x['length']} / {x['expanded']:,} / {x['search']:.3f}s / {x['rss'] / 1024:.0f} MB"


def ratio_line(rows, a, b, what):
    both = [(r["task"], r[a]["length"], r[b]["length"]) for r in rows if r.get(a) and r.get(b)]
    if not both:
        return f"- {what}: no task solved by both"
    ratios = [(x / y if y else 1.0, t, x, y) for t, x, y in both]
    worst = max(ratios)
    over = [f"{t} ({x} vs {y})" for q, t, x, y in ratios if q > 1.2]
    return (f"- {what}: mean {sum(q for q, *_ in ratios) / len(ratios):.3f}, worst {worst[0]:.2f} "
            f"({worst[1]}: {worst[2]} vs {worst[3]}) over {len(both)} tasks both solve; "
            f"above 1.2×: {', '.join(over) if over else 'none'}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ensemble", required=True)
    ap.add_argument("--data", required=True, action="append",
                    help="a folder of <domain>/domain.pddl + taskNN.pddl (repeatable)")
    ap.add_argument("--venv", default="/tmp/ensemble-plan-venv")
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--tasks", default="01,03,05,07,09,11",
                    help="task numbers of the IPC folders, or 'all' (generated folders: all)")
    ap.add_argument("--configs", default="", help="comma-separated planner names (default all)")
    ap.add_argument("--json", default=None, help="write the measurements here as they come")
    ap.add_argument("--combine", nargs="+", default=None, metavar="JSON",
                    help="print the table of earlier --json files instead of measuring (a later "
                         "file's planner columns are added beside an earlier one's, renamed "
                         "with --label)")
    ap.add_argument("--label", nargs="*", default=[], help="suffix per --combine file")
    args = ap.parse_args()
    if args.combine:
        rows, names = combine(args.combine, args.label)
        report(rows, names, None, args.timeout)
        return
    # Fast Downward runs in a temporary folder: every path must be absolute.
    args.data = [os.path.abspath(d) for d in args.data]
    args.ensemble = os.path.abspath(args.ensemble)
    args.python = ensure_venv(args.venv)
    args.pyperplan = os.path.join(os.path.dirname(args.python), "pyperplan")
    purelib = subprocess.run([args.python, "-c", "import sysconfig;print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True).stdout.strip()
    args.fd = os.path.join(purelib, "up_fast_downward", "downward", "fast-downward.py")
    assert os.path.exists(args.fd), args.fd
    configs = [
        ("ours A*", lambda d, p: ours(args, d, p, "astar")),
        ("FD A* lmcut", lambda d, p: fd(args, d, p, "astar(lmcut())")),
        ("pyperplan A* lmcut", lambda d, p: pyperplan(args, d, p, "astar", "lmcut")),
        ("ours gbfs", lambda d, p: ours(args, d, p, "gbfs")),
        ("FD lama-first", lambda d, p: fd(args, d, p, "--alias lama-first")),
        ("pyperplan gbfs hff", lambda d, p: pyperplan(args, d, p, "gbf", "hff")),
    ]
    if args.configs:
        wanted = [c.strip() for c in args.configs.split(",")]
        configs = [c for c in configs if c[0] in wanted]
    rows = []
    load = os.getloadavg()[0]
    for name, dom, prob in tasks(args):
        row = {"task": name}
        for cname, f in configs:
            row[cname] = f(dom, prob)
            print(name, cname, row[cname], file=sys.stderr, flush=True)
        rows.append(row)
        if args.json:
            with open(args.json, "w") as fh:
                json.dump(rows, fh, indent=1)
    report(rows, [c[0] for c in configs], load, args.timeout)


def combine(files, labels):
    rows, names = {}, []
    for i, path in enumerate(files):
        label = labels[i] if i < len(labels) else ""
        with open(path) as fh:
            for r in json.load(fh):
                row = rows.setdefault(r["task"], {"task": r["task"]})
                for k, v in r.items():
                    if k == "task":
                        continue
                    name = f"{k}{label}"
                    row[name] = v
                    if name not in names:
                        names.append(name)
    return list(rows.values()), names


def report(rows, names, load, timeout):
    for r in rows:
        for n in names:
            r.setdefault(n, None)
    if load is not None:
        print(f"load average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end; timeout {timeout:g} s")
    print()
    print("| task | " + " | ".join(names) + " |")
    print("|---" * (len(names) + 1) + "|")
    for r in rows:
        print(f"| {r['task']} | " + " | ".join(cell(r[n]) for n in names) + " |")
    print()
    for n in names:
        print(f"- {n}: solved {sum(r[n] is not None for r in rows)}/{len(rows)}")
    for ours_name in names:
        for prefix, peer in (("ours A*", "FD A* lmcut"), ("ours gbfs", "FD lama-first")):
            if ours_name.startswith(prefix) and peer in names:
                compare(rows, ours_name, peer)


def compare(rows, a, b):
    """Coverage, plan length ratio and search time of planner `a` against peer `b`."""
    missed = [r["task"] for r in rows if r[b] and not r[a]]
    print(f"- {b} solves, {a} does not: {', '.join(missed) or 'none'}")
    print(ratio_line(rows, a, b, f"{a} length / {b} length"))
    st = [(r[a]["search"], r[b]["search"]) for r in rows
          if r[a] and r[b] and r[b]["search"] >= 0.05]
    if st:
        print(f"- search time {a} / {b} on the {len(st)} tasks both solve where {b} searches ≥ 0.05 s: "
              f"total {sum(x for x, _ in st):.2f} s / {sum(y for _, y in st):.2f} s = "
              f"{sum(x for x, _ in st) / sum(y for _, y in st):.2f}×")

if __name__ == "__main__":
    main()
