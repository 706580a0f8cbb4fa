#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/commands.h"

int main(int argc, char** argv) {
  using namespace sy;
  CLI::App app{"switchyard: runs ONNX models (control flow included) with per-node runtime placement"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "switchyard 0.1.0");

  RunArgs run;
  auto* c_run = app.add_subcommand("run", "Run a model on inputs and write its outputs");
  c_run->add_option("model", run.model, "ONNX model file")->required();
  c_run->add_option("-i,--input", run.inputs, "Input as NAME=FILE (.npy or TensorProto .pb); repeatable");
  c_run->add_option("--dim", run.dims, "Fix a symbolic input dimension, NAME=VALUE; repeatable");
  c_run->add_option("-o,--output-dir", run.output_dir, "Write each output to DIR/<name>.npy");
  c_run->add_option("-n,--runs", run.runs, "Number of runs (for timing)")->check(CLI::Range(1, 1000000));
  c_run->add_option("--report", run.report, "Write a JSON report (latencies, p50/p95/mean, nodes per device)");
  c_run->add_option("--policy", run.policy, "Placement policy")->capture_default_str();
  c_run->add_option("--devices", run.devices, "Devices, e.g. cpu or cpu:0")->capture_default_str();
  c_run->add_flag("--random-inputs", run.random_inputs, "Generate missing inputs at random");
  c_run->add_option("--seed", run.seed, "Seed for --random-inputs");
  c_run->add_flag("-q,--quiet", run.quiet, "Print only errors");

  std::string info_model;
  auto* c_info = app.add_subcommand("info", "Describe a model: opsets, inputs/outputs, op counts, kernel coverage");
  c_info->add_option("model", info_model, "ONNX model file")->required();

  std::string test_dir, test_policy = "single", test_devices = "cpu";
  bool test_machine = false;
  auto* c_test = app.add_subcommand("test", "Run one ONNX backend test case (model.onnx + test_data_set_*)");
  c_test->add_option("case_dir", test_dir, "Test case folder")->required();
  c_test->add_option("--policy", test_policy, "Placement policy")->capture_default_str();
  c_test->add_option("--devices", test_devices, "Devices")->capture_default_str();
  c_test->add_flag("--machine", test_machine, "Print one machine-readable result line (used by conformance)");

  ConformanceArgs conf;
  auto* c_conf = app.add_subcommand("conformance", "Run every ONNX backend test case under ROOT, each in its own process");
  c_conf->add_option("root", conf.root, "Folder of case folders, e.g. /usr/share/libonnx-testdata/data/node")->required();
  c_conf->add_option("--json", conf.json, "Write per-case results as JSON");
  c_conf->add_option("--filter", conf.filter, "Only cases whose folder name matches this regex");
  c_conf->add_option("--exclusions", conf.exclusions, "Exclusion list (case name, then the reason); default: the repo's list");
  c_conf->add_option("--policy", conf.policy, "Placement policy")->capture_default_str();
  c_conf->add_option("--devices", conf.devices, "Devices")->capture_default_str();
  c_conf->add_option("-j,--jobs", conf.jobs, "Cases run at once (default: number of cores)");
  c_conf->add_option("--timeout", conf.timeout_s, "Seconds before a case is killed")->capture_default_str();
  c_conf->add_flag("-v,--verbose", conf.verbose, "Also print passing cases");

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
  try {
    if (c_run->parsed()) return cmd_run(run);
    if (c_info->parsed()) return cmd_info(info_model);
    if (c_test->parsed()) return cmd_test(test_dir, test_policy, test_devices, test_machine);
    if (c_conf->parsed()) return cmd_conformance(conf, "/proc/self/exe");
  } catch (const std::exception& e) {
    return report_error(std::string("internal error: ") + e.what(), kExitFailed);
  }
  return kExitBadInput;
}
