// compare_outputs: structure, then shape, dtype and device over all leaves, then one data pass per
// leaf. The verdict reports the highest-priority failure (FailReason's order); among leaves with
// that failure, the first in output order.
#include "kbx/compare/comparator.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>

#include "kbx/common/check.h"
#include "kbx/compare/leaf_detail.h"
#include "kbx/compare/leaf_scan.h"
#include "kbx/compare/metrics.h"
#include "kbx/compare/scalar_leaf.h"

namespace kbx::compare {
namespace {

Verdict fail(FailReason reason, std::string_view path, std::string detail) {
  Verdict v;
  v.ok = false;
  v.reason = reason;
  v.path = path;
  v.detail = std::move(detail);
  return v;
}

/// "cuda" for "cuda:0": devices match by kind, not index.
std::string_view device_kind(std::string_view device) { return device.substr(0, device.find(':')); }

/// Why a blob cannot be compared (bad dims, wrong byte count), or nullopt when it is fine.
std::optional<std::string> malformation(const TensorBlob& t) {
  std::int64_t numel = 1;
  for (auto d : t.shape) {
    if (d < 0 || __builtin_mul_overflow(numel, d, &numel)) {
      return fmt::format("has an invalid shape [{}]", fmt::join(t.shape, ", "));
    }
  }
  std::uint64_t bytes = 0;
  if (__builtin_mul_overflow(static_cast<std::uint64_t>(numel), element_size(t.dtype), &bytes) ||
      bytes != t.data.size()) {
    return fmt::format("{} carries {} bytes, expected {}", describe(t), t.data.size(), bytes);
  }
  return std::nullopt;
}

/// A leaf pair that survived the structure check; tensors are set for tensor and scalar leaves.
struct Operand {
  const OutputLeaf* ref = nullptr;
  const OutputLeaf* cand = nullptr;
  const TensorBlob* ref_tensor = nullptr;
  const TensorBlob* cand_tensor = nullptr;
};

/// What the data pass found for one leaf.
struct LeafOutcome {
  FailReason reason = FailReason::none;
  LeafStats stats;
  Tolerance tol;
  std::optional<Metrics> metrics;  ///< float and complex leaves under a metrics contract
};

class Comparison {
 public:
  Comparison(const std::vector<OutputLeaf>& ref, const std::vector<OutputLeaf>& cand,
             const Contract& contract, const std::vector<OutputLeaf>* magnitudes = nullptr)
      : ref_(ref), cand_(cand), contract_(contract), magnitudes_(magnitudes) {
    scalars_.reserve(2 * ref.size());  // Operand points into it: no reallocation allowed
  }

  std::optional<Verdict> check_structure();
  std::optional<Verdict> check_metadata() const;
  Verdict check_values() const;

 private:
  std::optional<Verdict> bind(std::size_t i);
  std::optional<Verdict> bind_side(const OutputLeaf& leaf, const char* side,
                                   const TensorBlob*& out);
  LeafOutcome judge(const Operand& op) const;
  Verdict fail_leaf(const Operand& op, const LeafOutcome& outcome) const;
  Verdict pass(const std::vector<LeafOutcome>& outcomes) const;

  const TensorBlob* magnitude_for(const OutputLeaf& ref) const;

  const std::vector<OutputLeaf>& ref_;
  const std::vector<OutputLeaf>& cand_;
  const Contract& contract_;
  const std::vector<OutputLeaf>* magnitudes_;
  std::vector<TensorBlob> scalars_;
  std::vector<Operand> operands_;
};

std::optional<Verdict> Comparison::check_structure() {
  const std::size_t n = std::min(ref_.size(), cand_.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (cand_[i].path != ref_[i].path) {
      return fail(FailReason::structure_mismatch, ref_[i].path,
                  fmt::format("output leaf {} is {}, expected {}", i, cand_[i].path, ref_[i].path));
    }
    if (cand_[i].kind != ref_[i].kind) {
      return fail(FailReason::structure_mismatch, ref_[i].path,
                  fmt::format("{}: got {}, expected {}", ref_[i].path, to_string(cand_[i].kind),
                              to_string(ref_[i].kind)));
    }
    if (auto v = bind(i)) {
      return v;
    }
  }
  if (cand_.size() < ref_.size()) {
    return fail(FailReason::structure_mismatch, ref_[n].path,
                fmt::format("{} is missing: the candidate returned {} output leaves, expected {}",
                            ref_[n].path, cand_.size(), ref_.size()));
  }
  if (cand_.size() > ref_.size()) {
    return fail(FailReason::structure_mismatch, cand_[n].path,
                fmt::format("unexpected {}: the candidate returned {} output leaves, expected {}",
                            cand_[n].path, cand_.size(), ref_.size()));
  }
  return std::nullopt;
}

/// Records leaf i as an Operand, decoding scalars and rejecting malformed tensors.
std::optional<Verdict> Comparison::bind(std::size_t i) {
  Operand op{&ref_[i], &cand_[i]};
  if (ref_[i].kind == LeafKind::tensor || ref_[i].kind == LeafKind::scalar) {
    if (auto v = bind_side(ref_[i], "reference", op.ref_tensor)) {
      return v;
    }
    if (auto v = bind_side(cand_[i], "candidate", op.cand_tensor)) {
      return v;
    }
  }
  operands_.push_back(op);
  return std::nullopt;
}

std::optional<Verdict> Comparison::bind_side(const OutputLeaf& leaf, const char* side,
                                             const TensorBlob*& out) {
  if (leaf.kind == LeafKind::scalar) {
    Result<TensorBlob> blob = scalar_to_tensor(leaf.value);
    if (!blob) {
      return fail(FailReason::structure_mismatch, leaf.path,
                  fmt::format("{}: {} {}", leaf.path, side, blob.error().what()));
    }
    KBX_CHECK(scalars_.size() < scalars_.capacity()) << "Operand pointers would dangle";
    out = &scalars_.emplace_back(std::move(blob).value());
    return std::nullopt;
  }
  if (auto why = malformation(leaf.tensor)) {
    return fail(FailReason::structure_mismatch, leaf.path,
                fmt::format("{}: {} tensor {}", leaf.path, side, *why));
  }
  out = &leaf.tensor;
  return std::nullopt;
}

std::optional<Verdict> Comparison::check_metadata() const {
  for (const Operand& op : operands_) {
    if (op.ref_tensor != nullptr && op.cand_tensor->shape != op.ref_tensor->shape) {
      return fail(FailReason::shape_mismatch, op.ref->path,
                  fmt::format("{}: shape [{}], expected [{}]", op.ref->path,
                              fmt::join(op.cand_tensor->shape, ", "),
                              fmt::join(op.ref_tensor->shape, ", ")));
    }
  }
  for (const Operand& op : operands_) {
    if (op.ref_tensor != nullptr && op.cand_tensor->dtype != op.ref_tensor->dtype) {
      return fail(FailReason::dtype_mismatch, op.ref->path,
                  fmt::format("{}: dtype {}, expected {}", op.ref->path,
                              to_string(op.cand_tensor->dtype), to_string(op.ref_tensor->dtype)));
    }
  }
  for (const Operand& op : operands_) {
    if (op.ref_tensor != nullptr &&
        device_kind(op.cand_tensor->device) != device_kind(op.ref_tensor->device)) {
      return fail(FailReason::device_mismatch, op.ref->path,
                  fmt::format("{}: on device '{}', expected '{}'", op.ref->path,
                              op.cand_tensor->device, op.ref_tensor->device));
    }
  }
  for (const Operand& op : operands_) {
    if (contract_.requires_grad && op.ref_tensor != nullptr && op.ref->kind == LeafKind::tensor &&
        op.cand_tensor->requires_grad != op.ref_tensor->requires_grad) {
      return fail(FailReason::requires_grad_mismatch, op.ref->path,
                  fmt::format("{}: requires_grad={}, expected {} (the task's result carries the "
                              "requires_grad it is asked for)",
                              op.ref->path, op.cand_tensor->requires_grad ? "True" : "False",
                              op.ref_tensor->requires_grad ? "True" : "False"));
    }
  }
  return std::nullopt;
}

LeafOutcome Comparison::judge(const Operand& op) const {
  LeafOutcome out;
  if (op.ref_tensor == nullptr) {  // none, str, repr
    const bool same = op.ref->kind == LeafKind::none || op.cand->value == op.ref->value;
    out.reason = same ? FailReason::none : FailReason::value_mismatch;
    return out;
  }
  const DType dtype = op.ref_tensor->dtype;
  const bool by_metrics = contract_.metrics.has_value() && !is_exact(dtype);
  out.tol = by_metrics ? unbounded_tolerance : contract_.tolerance_for(dtype);
  const TensorBlob* magnitude = by_metrics ? nullptr : magnitude_for(*op.ref);
  out.stats = magnitude != nullptr
                  ? scan_leaf_bounded(*op.ref_tensor, *op.cand_tensor, out.tol, *magnitude,
                                      *contract_.error_bound_k * unit_roundoff(dtype))
                  : scan_leaf(*op.ref_tensor, *op.cand_tensor, out.tol, by_metrics);
  if (by_metrics) {
    out.metrics = metrics_from(out.stats.sums);
  }
  const LeafStats& s = out.stats;
  out.reason = s.nan_mismatch_count > 0     ? FailReason::nan_mismatch
               : s.inf_mismatch_count > 0   ? FailReason::inf_mismatch
               : s.value_mismatch_count > 0 ? FailReason::value_mismatch
               : by_metrics && !meets(*out.metrics, *contract_.metrics)
                   ? FailReason::metric_mismatch
                   : FailReason::none;
  return out;
}

/// The magnitude tensor for a real floating tensor leaf under an error bound, else nullptr.
const TensorBlob* Comparison::magnitude_for(const OutputLeaf& ref) const {
  if (magnitudes_ == nullptr || !contract_.error_bound_k || ref.kind != LeafKind::tensor ||
      is_exact(ref.tensor.dtype) || ref.tensor.dtype == DType::complex64 ||
      ref.tensor.dtype == DType::complex128) {
    return nullptr;
  }
  for (const OutputLeaf& m : *magnitudes_) {
    if (m.path == ref.path && m.kind == LeafKind::tensor && m.tensor.dtype == DType::float64 &&
        m.tensor.shape == ref.tensor.shape && !malformation(m.tensor)) {
      return &m.tensor;
    }
  }
  return nullptr;
}

Verdict Comparison::check_values() const {
  std::vector<LeafOutcome> outcomes;
  outcomes.reserve(operands_.size());
  for (const Operand& op : operands_) {
    outcomes.push_back(judge(op));
  }
  std::optional<std::size_t> worst;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    if (outcomes[i].reason != FailReason::none &&
        (!worst || outcomes[i].reason < outcomes[*worst].reason)) {
      worst = i;
    }
  }
  return worst ? fail_leaf(operands_[*worst], outcomes[*worst]) : pass(outcomes);
}

std::string describe_text_mismatch(const Operand& op) {
  constexpr std::size_t limit = 80;
  auto shown = [](const Json& v) {
    std::string text = v.dump();
    return text.size() > limit ? text.substr(0, limit) + "..." : text;
  };
  return fmt::format("{}: {} differs (got {}, expected {})", op.ref->path, to_string(op.ref->kind),
                     shown(op.cand->value), shown(op.ref->value));
}

Verdict Comparison::fail_leaf(const Operand& op, const LeafOutcome& o) const {
  if (op.ref_tensor == nullptr) {
    Verdict v = fail(o.reason, op.ref->path, describe_text_mismatch(op));
    v.mismatch_count = 1;
    v.first_mismatch_index = 0;
    return v;
  }
  const TensorBlob& ref = *op.ref_tensor;
  const TensorBlob& cand = *op.cand_tensor;
  const LeafStats& s = o.stats;
  const std::string& path = op.ref->path;
  Verdict v = fail(o.reason, path, "");
  switch (o.reason) {
    case FailReason::nan_mismatch:
      v.detail = describe_nan_mismatch(path, ref, cand, s);
      v.first_mismatch_index = s.first_nan_mismatch;
      break;
    case FailReason::inf_mismatch:
      v.detail = describe_inf_mismatch(path, ref, cand, s);
      v.first_mismatch_index = s.first_inf_mismatch;
      break;
    case FailReason::value_mismatch:
      v.detail = describe_value_mismatch(path, ref, cand, s, o.tol);
      v.first_mismatch_index = s.first_value_mismatch;
      break;
    case FailReason::metric_mismatch:
      v.detail = describe_metric_mismatch(path, *o.metrics, *contract_.metrics, s.numel);
      break;
    default:
      KBX_CHECK(false) << "no data failure to describe: " << to_string(o.reason);
  }
  v.err_abs_max = s.err_abs_max;
  v.err_rel_max = s.err_rel_max;
  v.mismatch_count = s.mismatch_count();
  v.nan_mismatch_count = s.nan_mismatch_count;
  v.inf_mismatch_count = s.inf_mismatch_count;
  if (o.metrics) {
    v.cosine_sim = o.metrics->cosine_sim;
    v.l1_relative = o.metrics->l1_relative;
    v.rmse = o.metrics->rmse;
  }
  return v;
}

/// ok, with each figure at its worst over the leaves (cosine_sim: lowest; errors: highest).
Verdict Comparison::pass(const std::vector<LeafOutcome>& outcomes) const {
  Verdict v;
  if (contract_.metrics) {
    v.cosine_sim = 1;
  }
  for (const LeafOutcome& o : outcomes) {
    v.err_abs_max = std::max(v.err_abs_max, o.stats.err_abs_max);
    v.err_rel_max = std::max(v.err_rel_max, o.stats.err_rel_max);
    if (o.metrics) {
      v.cosine_sim = std::min(v.cosine_sim, o.metrics->cosine_sim);
      v.l1_relative = std::max(v.l1_relative, o.metrics->l1_relative);
      v.rmse = std::max(v.rmse, o.metrics->rmse);
    }
  }
  return v;
}

}  // namespace

Verdict compare_outputs(const std::vector<OutputLeaf>& reference,
                        const std::vector<OutputLeaf>& candidate, const Contract& contract,
                        const std::vector<OutputLeaf>* magnitudes) {
  Comparison comparison(reference, candidate, contract, magnitudes);
  if (auto v = comparison.check_structure()) {
    return *v;
  }
  if (auto v = comparison.check_metadata()) {
    return *v;
  }
  return comparison.check_values();
}

Verdict compare_structure(const std::vector<OutputLeaf>& reference,
                          const std::vector<OutputLeaf>& candidate, bool requires_grad) {
  Contract contract = Contract::kernelbenchx_default();
  contract.requires_grad = requires_grad;
  Comparison comparison(reference, candidate, contract);
  if (auto v = comparison.check_structure()) {
    return *v;
  }
  if (auto v = comparison.check_metadata()) {
    return *v;
  }
  return Verdict{};
}

}  // namespace kbx::compare
