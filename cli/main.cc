#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/commands.h"

namespace {
constexpr const char* kNoFusionHelp =
    "Load the model as it is: no BatchNormalization folded into the Conv before it, no Add, Relu or Clip fused "
    "into it, no Gelu or LayerNormalization made from their arithmetic, and on CPUs no chains of convolutions run "
    "channels-last (NHWC)";
constexpr const char* kNoChannelsLastHelp =
    "Run every convolution on NCHW tensors, as the model has them; by default, on CPU-only devices, chains of "
    "convolutions run on channels-last (NHWC) tensors, which oneDNN's fastest CPU kernels take";
constexpr const char* kPolicyHelp =
    "Placement policy: dynamic (default), cpu/single, gpu, ort, static-heft, round-robin, random, "
    "or a path to a policy plugin (.so)";
constexpr const char* kDevicesHelp =
    "Devices: cpu (the whole host), e.g. cpu:0,cpu:1 (the host's cores split into devices with separate memory), "
    "and GPUs, e.g. cpu,cuda:0 (needs a CUDA build; `switchyard devices` lists what is usable)";
constexpr const char* kSimulateHelp =
    "Run on the simulated machine a profile describes (models/profiles/*.json; 'calibrate --sim' writes one for "
    "this machine), in virtual time: values are computed for real, times come from the profile. Replaces --devices";

// --devices and --simulate both name the devices; say so rather than
// silently ignore one.
bool both_device_sources(CLI::App* cmd, const std::string& simulate) {
  return !simulate.empty() && cmd->get_option("--devices")->count() > 0;
}
}  // namespace

int main(int argc, char** argv) {
  using namespace sy;
  CLI::App app{"switchyard: runs ONNX models (control flow included) with per-node runtime placement"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "switchyard 0.1.0");

  RunArgs run;
  auto* c_run = app.add_subcommand("run", "Run a model on inputs and write its outputs");
  c_run->add_option("model", run.model, "ONNX model file")->required();
  c_run->add_option("-i,--input", run.inputs, "Input as NAME=FILE (.npy or TensorProto .pb); repeatable");
  c_run->add_option("--dim", run.dims,
                    "Fix a symbolic input dimension, NAME=VALUE; repeatable (NAME must be one the inputs have)");
  c_run->add_option("-o,--output-dir", run.output_dir, "Write each output to DIR/<name>.npy");
  c_run->add_option("-n,--runs", run.runs, "Number of runs (for timing)")->check(CLI::Range(1, 1000000));
  c_run->add_option("--timeout", run.timeout_s,
                    "Seconds a run may take (0: no limit); checked between nodes, so a run stops at most one kernel late")
      ->check(CLI::Range(0.0, 1e9));
  c_run->add_option("--report", run.report, "Write a JSON report (latencies, p50/p95/mean, nodes per device)");
  c_run->add_option("--policy", run.policy, kPolicyHelp)->capture_default_str();
  c_run->add_option("--devices", run.devices, kDevicesHelp)->capture_default_str();
  c_run->add_option("--simulate", run.simulate, kSimulateHelp);
  c_run->add_option("--trace", run.trace, "Write a Chrome/Perfetto trace of the last run (one lane per device queue, copies apart)");
  c_run->add_option("--decisions", run.decisions, "Write why each node of the last run went where it went, one JSON line per node");
  c_run->add_option("--profile", run.profile, "Cost profile (JSON): loaded if it exists, saved with what the runs measured");
  c_run->add_flag("--random-inputs", run.random_inputs, "Generate missing inputs at random");
  c_run->add_option("--seed", run.seed, "Seed for --random-inputs, the 'random' policy and the simulator's noise");
  c_run->add_flag("-q,--quiet", run.quiet, "Print only errors");
  c_run->add_flag("!--no-fusion", run.fuse, kNoFusionHelp);
  c_run->add_flag("!--no-channels-last", run.channels_last, kNoChannelsLastHelp);

  std::string info_model;
  bool info_fuse = true;
  auto* c_info = app.add_subcommand("info", "Describe a model: opsets, inputs/outputs, op counts, kernel coverage");
  c_info->add_option("model", info_model, "ONNX model file")->required();
  c_info->add_flag("!--no-fusion", info_fuse, kNoFusionHelp);

  TestArgs test;
  auto* c_test = app.add_subcommand("test", "Run one ONNX backend test case (model.onnx + test_data_set_*)");
  c_test->add_option("case_dir", test.case_dir, "Test case folder");
  c_test->add_option("--policy", test.policy, kPolicyHelp)->capture_default_str();
  c_test->add_option("--devices", test.devices, kDevicesHelp)->capture_default_str();
  c_test->add_option("--simulate", test.simulate, kSimulateHelp);
  c_test->add_option("--seed", test.seed, "Seed for the 'random' policy and the simulator's noise");
  c_test->add_flag("--machine", test.machine, "Print one machine-readable result line (used by conformance)");
  c_test->add_flag("--batch", test.batch,
                   "Read case folders from stdin, one a line, and print a machine-readable result line for each "
                   "(conformance's worker processes)");

  ConformanceArgs conf;
  auto* c_conf = app.add_subcommand(
      "conformance",
      "Run every ONNX backend test case under ROOT, in worker processes that a crash or hang cannot take down");
  c_conf->add_option("root", conf.root, "Folder of case folders, e.g. /usr/share/libonnx-testdata/data/node")->required();
  c_conf->add_option("--json", conf.json, "Write per-case results as JSON");
  c_conf->add_option("--filter", conf.filter, "Only cases whose folder name matches this regex");
  c_conf->add_option("--exclusions", conf.exclusions,
                     "Exclusion list (case name, then the reason); repeat it for several; default: the repo's list");
  c_conf->add_option("--policy", conf.policy, kPolicyHelp)->capture_default_str();
  c_conf->add_option("--devices", conf.devices, kDevicesHelp)->capture_default_str();
  c_conf->add_option("--simulate", conf.simulate, kSimulateHelp);
  c_conf->add_option("--seed", conf.seed, "Seed for the 'random' policy");
  c_conf->add_option("--same-as", conf.same_as,
                     "A previous --json result: fail unless exactly the same cases pass (placement invariance)");
  c_conf->add_option("--min-share", conf.min_share,
                     "DEVICE=FRACTION, e.g. cuda:0=0.6: fail unless at least that share of the kernel nodes of passing "
                     "cases ran on DEVICE");
  c_conf->add_option("-j,--jobs", conf.jobs, "Cases run at once (default: number of cores)");
  c_conf->add_option("--timeout", conf.timeout_s, "Seconds before a case is killed")->capture_default_str();
  c_conf->add_flag("-v,--verbose", conf.verbose, "Also print passing cases");
  c_conf->add_flag("--isolated", conf.isolated,
                   "Run every case in a fresh process. By default a worker process runs case after case (on a GPU "
                   "its start-up costs seconds), and a case that does not pass there is run again alone for its "
                   "verdict");

  DevicesArgs dev;
  auto* c_dev = app.add_subcommand("devices", "List devices (name, kind, memory) and measure the links between their memory spaces");
  c_dev->add_option("--devices", dev.devices,
                    "Devices to list. The default splits the host into cpu:0 and cpu:1, two devices with separate "
                    "memory, so there is a link to measure; 'cpu' is the whole host as one device (no links)")
      ->capture_default_str();
  c_dev->add_option("--json", dev.json, "Also write devices and links as JSON");
  c_dev->add_option("--link-bytes", dev.link_bytes, "Copy size for measuring link bandwidth")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{4096}, uint64_t{1} << 32));

  CalibrateArgs cal;
  auto* c_cal = app.add_subcommand("calibrate", "Measure kernels and links on this machine and write a cost profile");
  c_cal->footer(
      "Times representative kernels (MatMul, Conv, elementwise, Softmax, ReduceSum, Concat, Transpose, Gather) at "
      "several sizes on every device, each device alone, plus the links between memory spaces, and writes a cost "
      "profile for --profile. Warm-up runs are not recorded; a few held-out runs check the fitted model's "
      "predictions. Calibrate with the --devices you will run with: 'cpu:0' alone and 'cpu:0' split from 'cpu:1' "
      "have different thread counts.");
  c_cal->add_option("-o,--out", cal.out, "Cost profile (JSON) to write")->required();
  c_cal->add_option("--sim", cal.sim,
                    "Also write a simulation profile of these devices for --simulate (kernel times, links and the "
                    "runtime's overhead per node)");
  c_cal->add_option("--models", cal.models,
                    "With --sim: also time every kernel of these models (files or folders), each device in turn, on "
                    "the inputs 'bench --seed 0' draws, so the profile knows their exact shapes");
  c_cal->add_option("--devices", cal.devices, kDevicesHelp)->capture_default_str();
  c_cal->add_flag("--quick", cal.quick, "Fewer sizes and repetitions: seconds, for smoke tests; a rough profile");
  c_cal->add_option("--reps", cal.reps, "Recorded runs per kernel and device (default 10, or 3 with --quick)")
      ->check(CLI::Range(1, 10000));
  c_cal->add_flag("-q,--quiet", cal.quiet, "Print only errors");

  BenchArgs bench;
  auto* c_bench = app.add_subcommand("bench", "Compare placement policies on models: latency, throughput, copies, placement");
  c_bench->footer(
      "For each model and policy: a fresh session, --warmup untimed runs, then --runs timed runs from --concurrency "
      "threads, with random inputs (seeded) shared by all policies. One table: latency p50/p95/mean (ms), "
      "throughput (runs/s over the wall time of the timed runs), speed-up, bytes and copies between memory spaces "
      "per run, and nodes per device per run. Speed-up = mean latency of the baseline / the row's mean; the "
      "baseline is the first listed of cpu, single, ort, static-heft, else the first policy listed. The 'outputs' "
      "column compares each policy's outputs (first timed run) with the first policy's (rtol 1e-3, atol 1e-4): a "
      "policy that computes something else fails the bench (exit code 1). A progress bar is drawn on stderr when "
      "it is a terminal.");
  c_bench->add_option("models", bench.models, "ONNX model files, or folders (their *.onnx files, sorted)")->required();
  c_bench->add_option("--policies", bench.policies, "Comma-separated policies (names or plugin paths)")
      ->capture_default_str();
  c_bench->add_option("--devices", bench.devices, kDevicesHelp)->capture_default_str();
  c_bench->add_option("--simulate", bench.simulate, kSimulateHelp);
  c_bench->add_option("-n,--runs", bench.runs, "Timed runs per model and policy")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  c_bench->add_option("--warmup", bench.warmup, "Untimed runs first")->capture_default_str()->check(CLI::Range(0, 100000));
  c_bench->add_option("-c,--concurrency", bench.concurrency, "Threads running the timed runs at once (runs split among them)")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  c_bench->add_option("--dim", bench.dims,
                      "Size of a symbolic input dimension, NAME=VALUE; repeatable (NAME must be one that some "
                      "model's inputs have)");
  c_bench->add_option("--seed", bench.seed, "Seed for the random inputs and the 'random' policy")->capture_default_str();
  c_bench->add_option("--profile", bench.profile, "Cost profile to load in every session (from 'calibrate'); not written");
  c_bench->add_option("--json", bench.json, "Also write every row (with per-run latencies) as JSON");
  c_bench->add_flag("!--no-fusion", bench.fuse, kNoFusionHelp);
  c_bench->add_flag("!--no-channels-last", bench.channels_last, kNoChannelsLastHelp);
  c_bench->add_flag("!--no-check", bench.check,
                    "Do not compare the policies' outputs (for models whose outputs vary from run to run)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return report_error(e.what(), kExitBadInput);
  }
  if (both_device_sources(c_run, run.simulate) || both_device_sources(c_test, test.simulate) ||
      both_device_sources(c_conf, conf.simulate) || both_device_sources(c_bench, bench.simulate))
    return report_error("--devices and --simulate exclude each other: the profile lists the simulated devices",
                        kExitBadInput);
  try {
    if (c_run->parsed()) return cmd_run(run);
    if (c_info->parsed()) return cmd_info(info_model, info_fuse);
    if (c_test->parsed()) return cmd_test(test);
    if (c_conf->parsed()) return cmd_conformance(conf, "/proc/self/exe");
    if (c_dev->parsed()) return cmd_devices(dev);
    if (c_cal->parsed()) return cmd_calibrate(cal);
    if (c_bench->parsed()) return cmd_bench(bench);
  } catch (const std::exception& e) {
    return report_error(std::string("internal error: ") + e.what(), kExitFailed);
  }
  return kExitBadInput;
}
