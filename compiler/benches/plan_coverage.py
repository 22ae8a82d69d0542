#!/usr/bin/env python3
"""Coverage of `ensemble plan` over the IPC tasks: one task at a time, sequentially, each under a
wall-clock timeout; on timeout the whole process group is killed (no orphans load later runs).

Usage:
  python3 compiler/benches/plan_coverage.py --ensemble target/release/ensemble \
      --data ../shared/data/pddl --timeout 30 -- --search astar [--heuristic lmcut]
Prints one JSON line per task, then a summary line.
"""
import argparse, json, os, signal, subprocess, sys, time

def run(cmd, timeout):
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out, err, time.perf_counter() - t0
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return None, "", "timeout", timeout

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ensemble", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--only", default="", help="comma-separated domain/task filters")
    ap.add_argument("rest", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    extra = [x for x in a.rest if x != "--"]
    solved = total = 0
    for dom in sorted(os.listdir(a.data)):
        d = os.path.join(a.data, dom)
        for t in sorted(f for f in os.listdir(d) if f.startswith("task")):
            name = f"{dom}/{t[:-5]}"
            if a.only and not any(k in name for k in a.only.split(",")):
                continue
            total += 1
            code, out, err, wall = run([a.ensemble, "plan", os.path.join(d, "domain.pddl"),
                                        os.path.join(d, t), "--format", "json",
                                        "--time-limit", str(a.timeout)] + extra, a.timeout + 5)
            row = {"task": name, "wall": round(wall, 2), "code": code}
            if code == 0:
                j = json.loads(out.splitlines()[0])
                assert j["valid"], name
                row.update(length=j["length"], expanded=j["expanded"], millis=j["millis"])
                solved += 1
            print(json.dumps(row), flush=True)
    print(json.dumps({"solved": solved, "total": total, "args": extra}), flush=True)

if __name__ == "__main__":
    main()
