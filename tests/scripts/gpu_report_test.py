"""scripts/gpu-report.py on results made up here, in gpu-check.sh's layout:
each acceptance verdict follows its figures, and a missing step reads as
not run rather than as a pass."""
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "gpu-report.py")
MB = 1 << 20


def copy_rows(raw_gbps, switchyard_gbps):
    rows = []
    for d2h in (0, 1):
        for pinned in (0, 1):
            for size in (MB, 8 * MB, 64 * MB):
                for impl, rate in ((0, raw_gbps), (1, switchyard_gbps(d2h, pinned, size))):
                    rows.append({"name": f"BM_Copy/switchyard:{impl}/d2h:{d2h}/pinned:{pinned}/bytes:{size}/manual_time",
                                 "GB/s": rate * 1e9})
    return {"benchmarks": rows}


def bench_rows(means):
    rows = []
    for model, by_policy in means.items():
        for i, (policy, mean) in enumerate(by_policy.items()):
            rows.append({"model": model, "policy": policy, "mean_ms": mean, "ok": True,
                         "outputs_check": "ref" if i == 0 else "same"})
    return {"rows": rows}


class GpuReport(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.raw = os.path.join(self.dir.name, "raw")
        os.makedirs(self.raw)

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, content):
        with open(os.path.join(self.raw, name), "w") as f:
            f.write(content if isinstance(content, str) else json.dumps(content))

    def report(self, *paths):
        r = subprocess.run([sys.executable, SCRIPT, *(paths or [self.raw])], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout

    def verdict(self, out, item):
        for line in out.splitlines():
            if line.startswith("| " + item):
                return line.split("|")[2].strip()
        self.fail(f"no row for {item!r} in:\n{out}")

    def test_missing_steps_read_as_not_run(self):
        out = self.report()
        for item in ("conformance", "`--policy random`", "pinned copies", "`dynamic` beats"):
            self.assertEqual(self.verdict(out, item), "not run")

    def test_conformance_needs_same_pass_set_and_share(self):
        self.write("conformance_gpu.txt", "916 passed, 0 failed, 16 skipped\nsame pass set as base.json: yes\n"
                   "share of kernel nodes on cuda:0: 55.0% (at least 60%) FAILED\n")
        self.write("conformance_gpu_random.txt", "916 passed, 0 failed, 16 skipped\nsame pass set as base.json: yes\n")
        out = self.report()
        self.assertEqual(self.verdict(out, "conformance"), "FAIL")
        self.assertEqual(self.verdict(out, "`--policy random`"), "PASS")
        self.write("conformance_gpu.txt", "916 passed, 0 failed, 16 skipped\nsame pass set as base.json: yes\n"
                   "share of kernel nodes on cuda:0: 78.0% (at least 60%) ok\n")
        self.assertEqual(self.verdict(self.report(), "conformance"), "PASS")

    def test_transfers_judge_pinned_8mb_and_up_only(self):
        # Pageable and small pinned copies may be slow; 8 MB+ pinned may not.
        slow_small = lambda d2h, pinned, size: 20.0 if (not pinned or size < 8 * MB) else 45.0
        self.write("transfer_bench.json", copy_rows(50.0, slow_small))
        self.assertEqual(self.verdict(self.report(), "pinned copies"), "PASS")
        slow_d2h_64 = lambda d2h, pinned, size: 40.0 if (d2h and pinned and size == 64 * MB) else 49.0
        self.write("transfer_bench.json", copy_rows(50.0, slow_d2h_64))
        out = self.report()
        self.assertEqual(self.verdict(out, "pinned copies"), "FAIL")
        self.assertIn("| D2H | pinned | 67108864 | 50.00 | 40.00 | 0.800 ** | - |", out)

    def test_transfers_show_how_long_a_copy_holds_its_caller_and_host_tensor_costs(self):
        rows = copy_rows(50.0, lambda d2h, pinned, size: 49.0)
        for r in rows["benchmarks"]:
            if "switchyard:1/d2h:0/pinned:0/bytes:1048576" in r["name"]:
                r["issue_us"] = 71.25
        for locked, ns in ((0, 120.0), (1, 180.0)):
            rows["benchmarks"].append({"name": f"BM_HostTensor/page_locked:{locked}/bytes:65536/threads:2",
                                       "real_time": ns, "time_unit": "ns"})
        rows["benchmarks"].append({"name": "BM_HostTensor/page_locked:1/bytes:1048576/threads:1", "real_time": 9.0,
                                   "time_unit": "ns"})  # no ordinary row to pair with: left out
        self.write("transfer_bench.json", rows)
        out = self.report()
        self.assertIn("| H2D | pageable | 1048576 | 50.00 | 49.00 | 0.980 | 71.2 |", out)
        self.assertIn("| 65536 | 2 | 120 | 180 |", out)
        self.assertNotIn("| 1048576 | 1 |", out)

    def test_workloads_need_dynamic_below_both_baselines(self):
        self.write("workloads.json", bench_rows({"a": {"dynamic": 1.0, "gpu": 0.9, "cpu": 2.0},
                                                 "b": {"dynamic": 1.0, "gpu": 3.0, "cpu": 0.8}}))
        self.assertEqual(self.verdict(self.report(), "`dynamic` beats `gpu` and `cpu` on a workload (`workloads`)"),
                         "FAIL")
        self.write("workloads.json", bench_rows({"a": {"dynamic": 1.0, "gpu": 1.1, "cpu": 2.0}}))
        out = self.report()
        self.assertEqual(self.verdict(out, "`dynamic` beats `gpu` and `cpu` on a workload (`workloads`)"), "PASS")
        self.assertIn("| a | 1.000 | 1.100 | 2.000 | dynamic wins |", out)

    def test_a_win_must_hold_against_the_cpu_with_every_core(self):
        item = "`dynamic` beats `gpu` and the better `cpu`"
        self.write("workloads.json", bench_rows({"a": {"dynamic": 1.0, "gpu": 1.1, "cpu": 1.05}}))
        self.assertEqual(self.verdict(self.report(), item), "not run")
        self.write("workloads_cpu_all-cores.json", bench_rows({"a": {"dynamic": 1.2, "gpu": 1.1, "cpu": 0.98}}))
        out = self.report()
        self.assertEqual(self.verdict(out, "`dynamic` beats `gpu` and `cpu` on a workload (`workloads`)"), "PASS")
        self.assertEqual(self.verdict(out, item), "FAIL")
        self.write("workloads_cpu_all-cores.json", bench_rows({"a": {"dynamic": 1.2, "gpu": 1.1, "cpu": 1.02}}))
        out = self.report()
        self.assertEqual(self.verdict(out, item), "PASS")
        self.assertIn("| a | 1.000 | 1.100 | 1.020 | dynamic wins |", out)

    def test_reads_packed_results_and_loose_files(self):
        self.write("gpu.txt", "NVIDIA H100 80GB HBM3, 580.65, 81559 MiB\n")
        self.write("workloads.json", bench_rows({"a": {"dynamic": 1.0, "gpu": 1.1, "cpu": 2.0}}))
        packed = os.path.join(self.dir.name, "results.tgz")
        with tarfile.open(packed, "w:gz") as t:
            t.add(self.raw, arcname=".")
        status = os.path.join(self.dir.name, "status.txt")
        with open(status, "w") as f:
            f.write("workloads rc=0 12s\n")
        out = self.report(packed, status)
        self.assertIn("NVIDIA H100 80GB HBM3", out)
        self.assertIn("workloads rc=0 12s", out)
        self.assertEqual(self.verdict(out, "`dynamic` beats `gpu` and `cpu` on a workload (`workloads`)"), "PASS")

    def test_fuzz_summary_and_findings_are_reported(self):
        self.assertNotIn("Fuzzing on the GPU", self.report())
        self.write("fuzz_gpu.txt", "noise\n812 mutants of 938 cases: 1 refused by the loader, 2 by the session, "
                   "3 failed to run, 4 ran (stopped early)\n"
                   "GPU FAULT (a bug; the campaign stopped): iteration 811 (--seed 7 --only 811)\n")
        out = self.report()
        self.assertIn("812 mutants of 938 cases", out)
        self.assertIn("GPU FAULT (a bug; the campaign stopped): iteration 811", out)
        self.assertNotIn("noise", out)
        self.write("fuzz_gpu.txt", "killed before its summary\n")
        self.assertIn("no summary line", self.report())

    def test_missing_path_is_an_error(self):
        r = subprocess.run([sys.executable, SCRIPT, os.path.join(self.dir.name, "nope")], capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("error:", r.stderr)


if __name__ == "__main__":
    unittest.main()
