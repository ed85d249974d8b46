#!/usr/bin/env python3
"""Smoke test of bench/run-all's report step (ctest bench.report): a family's saved output with known samples
goes through `run-all --report-only`; the ratio must be the median of the per-round ratios (0.5), not the
ratio of the medians (1.5), and bad rows and notes must be handled. No benchmark runs, nothing is timed."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

run_all = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "run-all")
out = tempfile.mkdtemp(prefix="bench-report-test-")
os.makedirs(os.path.join(out, "logs"))
meta = {"argv": ["--quick"], "quick": True, "total_s": 1.0,
        "machine": {"cpu": "test cpu", "topo": "", "mem": "", "versions": [["mpcrt", "test"]]},
        "runs": [{"family": "demo", "command": "demo/family", "wall_s": 1, "load_before": "0", "load_after": "0"}]}
with open(os.path.join(out, "logs", "run-all.json"), "w") as f:
    json.dump(meta, f)
samples = {"mpcrt": [1, 4, 3], "peer": [2, 2, 6]}  # per-round ratios 0.5, 2, 0.5; medians 3 / 2
with open(os.path.join(out, "logs", "demo.stdout"), "w") as f:
    f.write("# $ demo-program --flag\n# a note\nnot,a,row\ndemo,lat,8,mpcrt,x,1,us\n")
    for impl, values in samples.items():
        for rep, v in enumerate(values):
            f.write(f"demo,lat,8,{impl},{rep},{v},us\n")
    f.write('#@plot {"file": "demo", "title": "t", "benchmarks": ["lat"], "xlabel": "bytes", "logx": true}\n')
subprocess.run([sys.executable, run_all, "--report-only", out], check=True, stdout=subprocess.DEVNULL)
report = open(os.path.join(out, "report.md")).read()
rows = [line for line in report.splitlines() if line.startswith("| lat | 8 | us |")]
assert rows, report
assert "**0.5** [0.5-2]" in rows[0], rows[0]
assert "3 [1-4]" in rows[0] and "2 [2-6]" in rows[0], rows[0]
assert "- a note" in report and "demo-program --flag" in report, report
assert open(os.path.join(out, "demo.csv")).read().count("\n") == 7  # header + 6 good rows
shutil.rmtree(out)
print("bench report: ok")
