// Building worker requests and decoding worker replies.
#include "kbx/run/replies.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "kbx/common/strings.h"

namespace kbx::run {

Json calls_json(const std::vector<suite::ResolvedCall>& calls) {
  Json out = Json::array();
  for (const auto& c : calls) {
    out.push_back(Json{{"index", c.index}, {"name", c.name}, {"seed", c.seed}, {"args", c.args},
                       {"kwargs", c.kwargs}});
    if (!c.then.empty()) {
      out.back()["then"] = c.then;
      if (c.then_calls != 1) {
        out.back()["then_calls"] = c.then_calls;
      }
    }
    if (c.draw_on_device) {
      out.back()["draw_on_device"] = true;
    }
  }
  return out;
}

Json cases_json(const suite::Task& task, const std::vector<suite::ResolvedCall>& calls,
                bool for_reference, bool all_arguments) {
  Json out = calls_json(calls);
  for (std::size_t i = 0; i < out.size(); ++i) {
    Json& c = out[i];
    // Every argument comes back after the call, on both sides: one the task does not mutate must
    // still equal the reference's, so a kernel that writes into its inputs is caught.
    Json args = Json::array();
    for (std::size_t a = 0; a < calls[i].args.size(); ++a) {
      args.push_back(a);
    }
    std::vector<std::string> kwargs = task.mutated_kwargs;
    for (const auto& [name, value] : calls[i].kwargs.items()) {
      if (std::find(kwargs.begin(), kwargs.end(), name) == kwargs.end()) {
        kwargs.push_back(name);
      }
    }
    c["mutated_args"] = all_arguments ? args : Json(task.mutated_args);
    c["mutated_kwargs"] = all_arguments ? kwargs : task.mutated_kwargs;
    c["raises"] = calls[i].raises;
    c["exact"] = for_reference && task.exact_reference;
    if (for_reference && !task.canonical.empty()) {
      c["canonical"] = task.canonical;
    }
    c["bound"] = for_reference && has_error_bound(task) && calls[i].raises.empty();
  }
  return out;
}

bool has_error_bound(const suite::Task& task) {
  return task.precision.is_object() && task.precision.contains("error_bound");
}

std::vector<std::string> CaseResult::error_types() const {
  std::vector<std::string> out;
  auto it = error.find("types");
  if (it != error.end() && it->is_array()) {
    for (const auto& t : *it) {
      if (t.is_string()) {
        out.push_back(t.get<std::string>());
      }
    }
  }
  auto type = error.find("type");
  if (out.empty() && type != error.end() && type->is_string()) {
    out.push_back(type->get<std::string>());
  }
  return out;
}

bool CaseResult::raised_one_of(const std::vector<std::string>& names) const {
  if (status != CaseStatus::error) {
    return false;
  }
  for (const auto& t : error_types()) {
    if (std::find(names.begin(), names.end(), t) != names.end()) {
      return true;
    }
  }
  return false;
}
namespace {

/// An ok timing result's CUDA-graph figures into `t` (docs/worker-protocol.md, `time`); the
/// protocol error when they are malformed.
std::optional<Error> decode_graph_figures(const Json& r, store::TimingRecord& t) {
  if (r.contains("graph_samples_ms") && r.contains("graph_error")) {
    return Error(ErrorKind::protocol, "workload {}: both graph_samples_ms and graph_error",
                 t.workload);
  }
  if (r.contains("graph_samples_ms")) {
    const Json& samples = r.at("graph_samples_ms");
    if (!samples.is_array() || samples.empty() || samples.size() > max_graph_samples) {
      return Error(ErrorKind::protocol,
                   "workload {}: graph_samples_ms must be a list of 1 to {} times", t.workload,
                   max_graph_samples);
    }
    for (const Json& s : samples) {
      if (!s.is_number() || !std::isfinite(s.get<double>()) || s.get<double>() <= 0) {
        return Error(ErrorKind::protocol, "workload {}: a graph sample of {}", t.workload,
                     s.dump().substr(0, 32));
      }
      t.graph_samples_ms.push_back(s.get<double>());
    }
  }
  if (r.contains("graph_error")) {
    const Json& error = r.at("graph_error");
    if (!error.is_string()) {
      return Error(ErrorKind::protocol, "workload {}: graph_error is not a string", t.workload);
    }
    std::string text = printable(error.get<std::string>(), 4 * max_graph_error_bytes);
    text.resize(utf8_valid_prefix(std::string_view(text).substr(0, max_graph_error_bytes)));
    t.graph_error = text.empty() ? "graph capture failed" : text;
  }
  return std::nullopt;
}

// error[name] when it is a string, else "" (worker replies are not trusted to be well-formed).
std::string text_field(const Json& error, const char* name) {
  auto it = error.find(name);
  return it != error.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

namespace {

/// The `results` of a reply whose op is `op` ("cases" or "canonical"): per case its status, its
/// leaves (outputs, and the canonical forms and magnitudes a reference adds) or its error.
Result<std::vector<CaseResult>> decode_results(const sandbox::Frame& reply, const std::string& op) {
  if (reply.op() != op || !reply.header.contains("results") || !reply.header["results"].is_array()) {
    return Error(ErrorKind::protocol, "expected a '{}' reply with results, got '{}'", op, reply.op());
  }
  std::vector<CaseResult> out;
  try {
    for (const auto& r : reply.header["results"]) {
      CaseResult c;
      auto index = json_integer<int>(r.at("index"));
      if (!index) {
        return Error(ErrorKind::protocol, "a case result's index is not an integer");
      }
      c.index = *index;
      auto status = parse_case_status(r.at("status").get<std::string>());
      if (!status) {
        return Error(ErrorKind::protocol, "unknown case status {}", r.at("status").dump());
      }
      c.status = *status;
      c.time_ms = r.value("time_ms", 0.0);
      auto launches = json_integer<std::int64_t>(r.value("triton_launches", Json(0)));
      auto torch_ops = json_integer<std::int64_t>(r.value("torch_ops", Json(0)));
      if (!launches || !torch_ops) {
        return Error(ErrorKind::protocol, "case {}: a launch or operator count is not an integer",
                     c.index);
      }
      c.triton_launches = *launches;
      c.torch_ops = *torch_ops;
      if (r.contains("triton_output")) {
        c.triton_output = r.at("triton_output").get<bool>();
      }
      if (r.contains("kernels")) {
        auto kernels = decode_kernels(r.at("kernels"), "cases");
        if (!kernels) {
          return Error(ErrorKind::protocol, "case {}: {}", c.index, kernels.error().what());
        }
        c.kernels = std::move(kernels).value();
      }
      if (!std::isfinite(c.time_ms) || c.time_ms < 0 || c.triton_launches < 0 || c.torch_ops < 0) {
        return Error(ErrorKind::protocol, "case {}: a negative or non-finite time or launch count",
                     c.index);
      }
      if (c.status == CaseStatus::ok) {
        if (op == "canonical" && !r.contains("canonical")) {
          return Error(ErrorKind::protocol, "case {}: a canonical result without 'canonical'", c.index);
        }
        for (auto [field, slot] : {std::pair{"outputs", &c.outputs},
                                   {"canonical", &c.canonical},
                                   {"magnitude", &c.magnitude}}) {
          auto leaves = sandbox::decode_leaves(r.value(field, Json::array()), reply.payload);
          if (!leaves) {
            return leaves.error();
          }
          *slot = std::move(leaves).value();
        }
      } else if (c.status == CaseStatus::error) {
        c.error = r.value("error", Json::object());
        if (!c.error.is_object()) {
          return Error(ErrorKind::protocol, "case {}: 'error' is not an object", c.index);
        }
      }
      out.push_back(std::move(c));
    }
  } catch (const Json::exception& e) {
    return Error(ErrorKind::protocol, "malformed '{}' reply: {}", op, e.what());
  }
  return out;
}

}  // namespace

Result<std::vector<CaseResult>> decode_case_results(const sandbox::Frame& reply) {
  return decode_results(reply, "cases");
}

Result<std::vector<CaseResult>> decode_canonical_results(const sandbox::Frame& reply) {
  return decode_results(reply, "canonical");
}

Result<std::vector<store::TimingRecord>> decode_timings(const sandbox::Frame& reply) {
  if (reply.op() != "timings" || !reply.header.contains("results") ||
      !reply.header["results"].is_array()) {
    return Error(ErrorKind::protocol, "expected a 'timings' reply, got '{}'", reply.op());
  }
  std::vector<store::TimingRecord> out;
  try {
    for (const auto& r : reply.header["results"]) {
      store::TimingRecord t;
      auto index = json_integer<int>(r.at("index"));
      if (!index) {
        return Error(ErrorKind::protocol, "a timing result's index is not an integer");
      }
      t.workload = *index;
      t.status = r.at("status").get<std::string>();
      if (t.status == "ok") {
        t.samples_ms = r.at("samples_ms").get<std::vector<double>>();
        auto warmup_calls = json_integer<int>(r.value("warmup_calls", Json(0)));
        if (!warmup_calls) {
          return Error(ErrorKind::protocol, "workload {}: warmup_calls is not an integer",
                       t.workload);
        }
        t.warmup_calls = *warmup_calls;
        if (r.contains("bracket_ms")) {
          t.bracket_ms = r.at("bracket_ms").get<std::vector<double>>();
        }
        if (r.contains("host_ms")) {
          double host = r.at("host_ms").get<double>();
          if (!std::isfinite(host) || host < 0) {
            return Error(ErrorKind::protocol, "workload {}: host_ms of {}", t.workload, host);
          }
          t.host_ms = host;
        }
        if (r.contains("phase_ms")) {
          const Json& phases = r.at("phase_ms");
          if (!phases.is_object() || phases.size() > max_timing_phases) {
            return Error(ErrorKind::protocol, "workload {}: phase_ms must be an object of at most {} "
                         "numbers", t.workload, max_timing_phases);
          }
          for (const auto& [name, ms] : phases.items()) {
            if (!ms.is_number() || !std::isfinite(ms.get<double>()) || ms.get<double>() < 0) {
              return Error(ErrorKind::protocol, "workload {}: phase_ms.{} is not a time",
                           t.workload, printable(name.substr(0, 32), 32));
            }
            // Only the worker's own phase names are kept: the names end up in --trace files.
            if (std::find(known_timing_phases.begin(), known_timing_phases.end(), name) !=
                known_timing_phases.end()) {
              t.phase_ms.emplace_back(name, ms.get<double>());
            }
          }
        }
        if (r.contains("gpu_mhz") && r.at("gpu_mhz").is_number()) {
          double mhz = r.at("gpu_mhz").get<double>();
          if (std::isfinite(mhz) && mhz > 0 && mhz < 100000) {
            t.gpu_mhz = mhz;
          }
        }
        if (r.contains("do_bench_ms")) {
          double ms = r.at("do_bench_ms").get<double>();
          if (!std::isfinite(ms) || ms <= 0) {
            return Error(ErrorKind::protocol, "workload {}: do_bench_ms of {}", t.workload, ms);
          }
          t.do_bench_ms = ms;
        }
        if (r.contains("kernels")) {
          auto kernels = decode_kernels(r.at("kernels"), fmt::format("perf/{}", t.workload));
          if (!kernels) {
            return Error(ErrorKind::protocol, "workload {}: {}", t.workload, kernels.error().what());
          }
          t.kernels = std::move(kernels).value();
          auto kernel_calls = json_integer<int>(r.at("kernel_calls"));
          if (!kernel_calls) {
            return Error(ErrorKind::protocol, "workload {}: kernel_calls is not an integer",
                         t.workload);
          }
          t.kernel_calls = *kernel_calls;
          t.kernel_busy_ms = r.at("kernel_busy_ms").get<double>();
          t.inventory_kernel_ms = r.at("inventory_kernel_ms").get<std::vector<double>>();
          t.inventory_ms = r.at("inventory_ms").get<std::vector<double>>();
          if (r.contains("inventory_busy_ms")) {
            t.inventory_busy_ms = r.at("inventory_busy_ms").get<std::vector<double>>();
          }
          if (r.contains("inventory_flush_ms")) {
            t.inventory_flush_ms = r.at("inventory_flush_ms").get<std::vector<double>>();
          }
        }
        if (auto bad = decode_graph_figures(r, t)) {
          return *bad;
        }
        if (t.samples_ms.empty()) {
          t.status = "error";
          t.error = "no samples";
          t.graph_samples_ms.clear();
          t.graph_error.clear();
        }
      } else {
        const Json& error = r.value("error", Json::object());
        if (!error.is_object()) {
          return Error(ErrorKind::protocol, "workload {}: 'error' is not an object", t.workload);
        }
        t.error = describe_worker_error(error);
      }
      out.push_back(std::move(t));
    }
  } catch (const Json::exception& e) {
    return Error(ErrorKind::protocol, "malformed 'timings' reply: {}", e.what());
  }
  return out;
}

Result<std::vector<store::KernelUse>> decode_kernels(const Json& kernels, const std::string& stage) {
  if (!kernels.is_array() || kernels.size() > max_inventory_names) {
    return Error(ErrorKind::protocol, "'kernels' must be a list of at most {} entries",
                 max_inventory_names);
  }
  std::vector<store::KernelUse> out;
  for (const Json& k : kernels) {
    if (!k.is_object() || !k.contains("name") || !k["name"].is_string() ||
        !k.contains("origin") || !k["origin"].is_string() || !k.contains("launches") ||
        !k["launches"].is_number_integer()) {
      return Error(ErrorKind::protocol, "a 'kernels' entry needs a name, an origin and launches");
    }
    store::KernelUse use;
    use.stage = stage;
    use.name = k["name"].get<std::string>();
    use.origin = k["origin"].get<std::string>();
    use.launches = k["launches"].get<std::int64_t>();
    if (use.name.size() > 256 || (use.origin != "triton" && use.origin != "other" &&
                                  use.origin != "torch") ||
        use.launches < 0 || use.launches > 1'000'000'000) {
      return Error(ErrorKind::protocol, "a 'kernels' entry has a bad name, origin or count");
    }
    if (k.contains("gpu_ms")) {
      if (!k["gpu_ms"].is_number()) {
        return Error(ErrorKind::protocol, "a 'kernels' entry's gpu_ms is not a number");
      }
      double ms = k["gpu_ms"].get<double>();
      if (!std::isfinite(ms) || ms < 0) {
        return Error(ErrorKind::protocol, "a 'kernels' entry's gpu_ms is negative or not finite");
      }
      use.gpu_ms = ms;
    }
    out.push_back(std::move(use));
  }
  return out;
}

std::string describe_worker_error(const Json& error) {
  if (!error.is_object()) {
    return error.is_string() ? error.get<std::string>() : "error " + error.dump();
  }
  std::string type = text_field(error, "type");
  std::string message = text_field(error, "message");
  if (type.empty()) {
    std::string kind = text_field(error, "kind");
    return !message.empty() ? message : kind.empty() ? "error" : kind;
  }
  return message.empty() ? type : fmt::format("{}: {}", type, message);
}

}  // namespace kbx::run
