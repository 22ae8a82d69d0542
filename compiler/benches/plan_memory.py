#!/usr/bin/env python3
"""Bytes per search state: ours next to Fast Downward's, for BENCHMARKS.md (docs/benchmarks/planning.md).

Both planners run A* with the blind heuristic to the end on the same tasks, so both hold every
state they reach. For each planner and task:
    bytes per state = (peak RSS of the search - peak RSS of the same process stopped at once)
                      / states held,
with GNU time's peak RSS for both (Fast Downward's own "Peak memory" is virtual memory, not
RSS). Ours: `ensemble plan --search astar --heuristic blind`, stopped at once with
`--max-expansions 1`, states held = the JSON's "stored". Fast Downward: its search binary on the
translated task, `astar(blind())`, stopped at once with `bound=1`, states held = "Number of
registered states". The difference takes out what each holds before it searches (the task, the
heuristic's tables, the program itself).

Usage:
  python3 compiler/benches/plan_memory.py --ensemble target/release/ensemble \
      --data ../shared/data/pddl [--tasks gripper/task05,logistics/task07]
"""
import argparse, json, os, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plan_compare import ensure_venv, run  # noqa: E402

TASKS = "gripper/task05,logistics/task07,logistics/task09,elevators/task01,miconic/task07,blocks/task11"


def ours(args, dom, prob, extra):
    code, out, _, rss = run([args.ensemble, "plan", dom, prob, "--search", "astar", "--heuristic",
                             "blind", "--format", "json"] + extra, args.timeout)
    line = next((l for l in out.splitlines() if l.startswith("{")), None)
    if line is None:
        sys.exit(f"ours gave no JSON on {prob} (exit {code}):\n{out}")
    return json.loads(line), rss


def fd(args, search, sas, cwd):
    code, out, _, rss = run(["sh", "-c", f"{args.downward} --search '{search}' < {sas}"],
                            args.timeout, cwd=cwd)
    m = re.search(r"Number of registered states: (\d+)", out)
    return (int(m.group(1)) if m else None), rss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ensemble", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--venv", default="/tmp/ensemble-plan-venv")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--tasks", default=TASKS)
    args = ap.parse_args()
    args.ensemble = os.path.abspath(args.ensemble)
    python = ensure_venv(args.venv)
    purelib = subprocess.run([python, "-c", "import sysconfig;print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True).stdout.strip()
    root = os.path.join(purelib, "up_fast_downward", "downward")
    args.downward = os.path.join(root, "builds", "release", "bin", "downward")
    print("| task | ours: states held | ours: bytes per state | Fast Downward: states held "
          "| Fast Downward: bytes per state |")
    print("|---|---|---|---|---|")
    for name in args.tasks.split(","):
        domain_name, task = name.split("/")
        dom = os.path.abspath(os.path.join(args.data, domain_name, "domain.pddl"))
        prob = os.path.abspath(os.path.join(args.data, domain_name, task + ".pddl"))
        full, ours_peak = ours(args, dom, prob, [])
        _, ours_base = ours(args, dom, prob, ["--max-expansions", "1"])
        if full.get("stored") is None:
            sys.exit(f"ours did not finish {name}: {full}")
        with tempfile.TemporaryDirectory() as d:
            subprocess.run([python, os.path.join(root, "fast-downward.py"), "--translate", dom,
                            prob], cwd=d, check=True, capture_output=True)
            sas = os.path.join(d, "output.sas")
            fd_states, fd_peak = fd(args, "astar(blind())", sas, d)
            _, fd_base = fd(args, "astar(blind(),bound=1)", sas, d)
        if fd_states is None:
            sys.exit(f"Fast Downward did not finish {name}")
        per = lambda peak, base, n: (peak - base) * 1024 / n
        print(f"| {name} | {full['stored']:,} | {per(ours_peak, ours_base, full['stored']):.1f} "
              f"| {fd_states:,} | {per(fd_peak, fd_base, fd_states):.1f} |")


if __name__ == "__main__":
    main()
