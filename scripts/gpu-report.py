#!/usr/bin/env python3
"""Reads what scripts/gpu-check.sh wrote (a results folder, or its
results.tgz) and prints each GPU acceptance item of issue 4 with its
verdict and figures, as Markdown to paste into docs/benchmarks.md.

    python3 scripts/gpu-report.py RESULTS [RESULTS ...]

Several RESULTS (folders, .tgz files or single files such as status.txt,
one set per device call) are read together; a later one wins where two
hold the same file. Items whose step did not run say so."""
import argparse
import io
import json
import os
import re
import sys
import tarfile

PINNED_MIN_BYTES = 8 << 20
PINNED_MIN_RATIO = 0.85


def load(paths):
    files = {}
    for p in paths:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                for n in names:
                    full = os.path.join(root, n)
                    if n.endswith(".tgz"):
                        files.update(read_tgz(full))
                    else:
                        with open(full, "rb") as f:
                            files[n] = f.read()
        elif p.endswith((".tgz", ".tar.gz")):
            files.update(read_tgz(p))
        elif os.path.isfile(p):
            with open(p, "rb") as f:
                files[os.path.basename(p)] = f.read()
        else:
            sys.exit(f"error: {p}: no such file or folder")
    return files


def read_tgz(path):
    out = {}
    try:
        with tarfile.open(path) as t:
            for m in t.getmembers():
                if m.isfile():
                    out[os.path.basename(m.name)] = t.extractfile(m).read()
    except (tarfile.TarError, OSError) as e:
        sys.exit(f"error: {path}: {e}")
    return out


def text(files, name):
    b = files.get(name)
    return None if b is None else b.decode("utf-8", "replace")


def json_field(files, name, key):
    """(`key` of JSON file `name`, None), or (None, why there is none)."""
    b = files.get(name)
    if b is None:
        return None, "not run"
    try:
        return json.loads(b)[key], None
    except (ValueError, KeyError, TypeError) as e:
        return None, f"unreadable ({e})"


def conformance(files, name, want_share):
    t = text(files, name + ".txt")
    if t is None:
        return "not run", ""
    summary = re.findall(r"^(\d+ passed, \d+ failed, \d+ skipped.*)$", t, re.M)
    same = re.findall(r"same pass set as .*?: (\w+)", t)
    share = re.findall(r"share of kernel nodes on (\S+): ([^\n]*)", t)
    ok = bool(same) and same[-1] == "yes"
    if want_share:
        ok = ok and bool(share) and "ok" in share[-1][1]
    detail = "; ".join(filter(None, [summary[-1] if summary else "no summary line",
                                     f"same pass set: {same[-1]}" if same else "",
                                     f"share on {share[-1][0]}: {share[-1][1]}" if share else ""]))
    return ("PASS" if ok else "FAIL"), detail


def transfers(files):
    """Pairs each Switchyard copy row with the raw cudaMemcpyAsync row of the
    same direction, memory kind and size (Google Benchmark's JSON)."""
    benchmarks, why_not = json_field(files, "transfer_bench.json", "benchmarks")
    if why_not:
        return why_not, []
    gbps, issue = {}, {}
    for r in benchmarks:
        m = re.match(r"BM_Copy/switchyard:(\d)/d2h:(\d)/pinned:(\d)/bytes:(\d+)", r.get("name", ""))
        if m and "GB/s" in r and not r.get("error_occurred"):
            key = tuple(int(x) for x in m.groups())
            gbps[key] = r["GB/s"] / 1e9
            issue[key] = r.get("issue_us")
    rows, ok, seen = [], True, False
    for (impl, d2h, pinned, size), rate in sorted(gbps.items()):
        if impl != 1 or (0, d2h, pinned, size) not in gbps:
            continue
        raw = gbps[(0, d2h, pinned, size)]
        ratio = rate / raw if raw > 0 else 0.0
        counted = pinned == 1 and size >= PINNED_MIN_BYTES
        if counted:
            seen = True
            ok = ok and ratio >= PINNED_MIN_RATIO
        rows.append((("D2H" if d2h else "H2D"), ("pinned" if pinned else "pageable"), size, raw, rate, ratio, counted,
                     issue[(impl, d2h, pinned, size)]))
    if not seen:
        return "no pinned rows of 8 MB or more", rows
    return ("PASS" if ok else "FAIL"), rows


def host_tensors(files):
    """BM_HostTensor: (bytes, threads, ns from ordinary memory, ns from the
    pinned pool) per size and thread count that has both rows."""
    benchmarks, why_not = json_field(files, "transfer_bench.json", "benchmarks")
    if why_not:
        return []
    ns = {}
    for r in benchmarks:
        m = re.match(r"BM_HostTensor/page_locked:(\d)/bytes:(\d+)(?:/threads:(\d+))?", r.get("name", ""))
        if m and "real_time" in r and not r.get("error_occurred") and r.get("time_unit", "ns") == "ns":
            ns[(int(m.group(2)), int(m.group(3) or 1), int(m.group(1)))] = r["real_time"]
    return [(size, threads, ns[(size, threads, 0)], ns[(size, threads, 1)])
            for (size, threads, locked) in sorted(ns) if locked == 1 and (size, threads, 0) in ns]


def workloads(files, name):
    rows, why_not = json_field(files, name + ".json", "rows")
    if why_not:
        return why_not, []
    by_model = {}
    for r in rows:
        by_model.setdefault(r["model"], {})[r["policy"]] = r
    out, any_win = [], False
    for model, pol in by_model.items():
        d, g, c = (pol.get(p) for p in ("dynamic", "gpu", "cpu"))
        if not (d and g and c) or not all(x.get("ok") for x in (d, g, c)):
            out.append((model, None, None, None, "missing or failed rows"))
            continue
        checks = {x["outputs_check"] for x in pol.values()}
        win = d["mean_ms"] < g["mean_ms"] and d["mean_ms"] < c["mean_ms"] and checks <= {"ref", "same"}
        any_win = any_win or win
        out.append((model, d["mean_ms"], g["mean_ms"], c["mean_ms"], "dynamic wins" if win else ""))
    return ("PASS" if any_win else "FAIL"), out


def against_every_core(results):
    """`workloads` (the CPU beside the GPU leaves a core to the run loop)
    against the better `cpu` of that run and of `workloads_cpu_all-cores`:
    a win must not come from the `cpu` baseline's spare core."""
    default, all_cores = results.get("workloads"), results.get("workloads_cpu_all-cores")
    if not default or not default[1] or not all_cores or not all_cores[1]:
        return "not run", []
    cpu_all = {model: cm for model, _, _, cm, _ in all_cores[1] if cm is not None}
    out, any_win = [], False
    for model, dm, gm, cm, _ in default[1]:
        if dm is None or model not in cpu_all:
            continue
        best_cpu = min(cm, cpu_all[model])
        win = dm < gm and dm < best_cpu
        any_win = any_win or win
        out.append((model, dm, gm, best_cpu, "dynamic wins" if win else ""))
    return ("PASS" if any_win else "FAIL"), out


def fuzz(files):
    """The GPU fuzzing campaign's summary and findings (not an acceptance
    item: a diagnostic), or None when the step did not run."""
    out = text(files, "fuzz_gpu.txt")
    if out is None:
        return None
    keep = [l for l in out.splitlines()
            if re.match(r"\d+ mutants of ", l) or l.startswith(("INTERNAL ERROR", "GPU FAULT", "sy_model_fuzz: ", "error:"))]
    return keep or ["no summary line (the campaign did not finish; see fuzz_gpu.txt)"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", nargs="+", help="results folder(s) or results.tgz from gpu-check.sh")
    files = load(ap.parse_args().results)
    gpu = (text(files, "gpu.txt") or "").strip()
    print(f"GPU (name, driver, memory): {gpu or 'unknown (no gpu.txt)'}\n")
    libraries = text(files, "libraries.txt")
    if libraries:
        print("cuBLAS and cuDNN (libraries.txt):\n\n```\n" + libraries.strip() + "\n```\n")
    status = text(files, "status.txt")
    if status:
        print("Steps (status.txt):\n\n```\n" + status.strip() + "\n```\n")

    print("| acceptance item | verdict | figures |\n|---|---|---|")
    v, d = conformance(files, "conformance_gpu", want_share=True)
    print(f"| conformance, `--devices cuda:0,cpu --policy gpu` | {v} | {d} |")
    v, d = conformance(files, "conformance_gpu_random", want_share=False)
    print(f"| `--policy random` invariance over cpu, cuda:0 | {v} | {d} |")
    v, d = conformance(files, "conformance_newer_gpu", want_share=False)
    print(f"| (diagnostic) opset 18-23 cases, `--policy gpu` | {v} | {d} |")
    tv, trows = transfers(files)
    print(f"| pinned copies of 8 MB+ at {PINNED_MIN_RATIO:.0%} of raw `cudaMemcpyAsync` | {tv} | see below |")
    results = {}
    for name in ("workloads", "workloads_profiled", "workloads_cpu_inline", "workloads_cpu_all-cores",
                 "workloads_pageable"):
        results[name] = workloads(files, name)
        print(f"| `dynamic` beats `gpu` and `cpu` on a workload (`{name}`) | {results[name][0]} | see below |")
    strict = against_every_core(results)
    print(f"| `dynamic` beats `gpu` and the better `cpu` of `workloads` and `workloads_cpu_all-cores` | {strict[0]} "
          "| see below |")

    if trows:
        print("\n| direction | host memory | bytes | raw GB/s | Switchyard GB/s | ratio | enqueue holds its caller, us |\n"
              "|---|---|---:|---:|---:|---:|---:|")
        for direction, kind, size, raw, rate, ratio, counted, issue in trows:
            mark = " **" if counted and ratio < PINNED_MIN_RATIO else ""
            held = "-" if issue is None else f"{issue:.1f}"
            print(f"| {direction} | {kind} | {size} | {raw:.2f} | {rate:.2f} | {ratio:.3f}{mark} | {held} |")
    hrows = host_tensors(files)
    if hrows:
        print("\nA host tensor made and dropped (`BM_HostTensor`), ns:\n\n"
              "| bytes | threads | ordinary memory | pinned pool |\n|---:|---:|---:|---:|")
        for size, threads, plain, locked in hrows:
            print(f"| {size} | {threads} | {plain:.0f} | {locked:.0f} |")
    found = fuzz(files)
    if found is not None:
        print("\nFuzzing on the GPU (`fuzz_gpu`):\n\n```\n" + "\n".join(found) + "\n```")
    results["against every core (cpu: the better of the two runs)"] = strict
    for name, (_, rows) in results.items():
        if not rows:
            continue
        print(f"\n`{name}` (mean ms):\n\n| model | dynamic | gpu | cpu | |\n|---|---:|---:|---:|---|")
        for model, dm, gm, cm, note in rows:
            fmt = lambda x: "-" if x is None else f"{x:.3f}"
            print(f"| {model} | {fmt(dm)} | {fmt(gm)} | {fmt(cm)} | {note} |")


if __name__ == "__main__":
    main()
