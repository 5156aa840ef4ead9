// Shape and data-movement ops: Reshape, Flatten, Squeeze, Unsqueeze,
// Transpose, Concat, Slice, Gather, Shape, Constant, Identity/Dropout.
// Shapes must be static: the target of a Reshape, the axes of a Squeeze,
// the bounds of a Slice are constants (or folded at import).
#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/onnx/converters.h"
#include "graph/onnx/tensor_proto.h"

namespace tuneforge::graph::onnx_import {
namespace {

absl::Status AddReshape(ImportContext& ctx, ValueId x, std::vector<int64_t> shape) {
  const Value& v = ctx.value(x);
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  if (n != v.num_elements())
    return ctx.Invalid(absl::StrCat("cannot reshape [", absl::StrJoin(v.shape, ", "), "] (",
                                    v.num_elements(), " elements) to [", absl::StrJoin(shape, ", "),
                                    "]"));
  return ctx.AddNode(Reshape{}, {x}, v.dtype, std::move(shape)).status();
}

absl::StatusOr<std::vector<int64_t>> AxesArg(ImportContext& ctx, int input, int64_t rank) {
  auto given = ctx.IntsFromInputOrAttr(input, "axes", {});
  if (!given.ok()) return given.status();
  std::vector<int64_t> axes = *given;
  for (int64_t& a : axes) {
    auto n = NormalizeAxis(ctx, a, rank);
    if (!n.ok()) return n.status();
    a = *n;
  }
  std::sort(axes.begin(), axes.end());
  return axes;
}

}  // namespace

absl::Status ConvertReshape(ImportContext& ctx) {
  auto x = ctx.Input(0);
  if (!x.ok()) return x.status();
  // Before opset 5 the target shape is an attribute.
  auto target = ctx.opset() < 5 ? ctx.Ints("shape", {}) : ctx.ConstInts(1);
  if (!target.ok()) return target.status();
  auto allow_zero = ctx.Int("allowzero", 0);
  if (!allow_zero.ok()) return allow_zero.status();
  const Value& v = ctx.value(*x);
  std::vector<int64_t> shape = *target;
  int infer = -1;
  int64_t known = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0 && !*allow_zero) {
      if (d >= v.shape.size()) return ctx.Invalid("a 0 in the shape copies a dimension the input lacks");
      shape[d] = v.shape[d];
    }
    if (shape[d] == -1) {
      if (infer >= 0) return ctx.Invalid("the shape has more than one -1");
      infer = static_cast<int>(d);
    } else if (shape[d] <= 0) {
      return ctx.Invalid(absl::StrCat("the shape [", absl::StrJoin(*target, ", "), "] is invalid"));
    } else {
      known *= shape[d];
    }
  }
  if (infer >= 0) {
    if (known == 0 || v.num_elements() % known != 0)
      return ctx.Invalid("the -1 dimension cannot be inferred");
    shape[infer] = v.num_elements() / known;
  }
  return AddReshape(ctx, *x, shape);
}

absl::Status ConvertFlatten(ImportContext& ctx) {
  auto x = ctx.Input(0);
  if (!x.ok()) return x.status();
  const Value& v = ctx.value(*x);
  const int64_t rank = static_cast<int64_t>(v.shape.size());
  auto axis_attr = ctx.Int("axis", 1);
  if (!axis_attr.ok()) return axis_attr.status();
  int64_t axis = *axis_attr < 0 ? *axis_attr + rank : *axis_attr;
  if (axis < 0 || axis > rank) return ctx.Invalid("axis is out of range");
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= v.shape[d];
  return AddReshape(ctx, *x, {outer, v.num_elements() / outer});
}

absl::Status ConvertSqueeze(ImportContext& ctx) {
  auto x = ctx.Input(0);
  if (!x.ok()) return x.status();
  const Value& v = ctx.value(*x);
  auto axes = AxesArg(ctx, 1, static_cast<int64_t>(v.shape.size()));
  if (!axes.ok()) return axes.status();
  std::vector<int64_t> shape;
  for (size_t d = 0; d < v.shape.size(); ++d) {
    bool listed = std::find(axes->begin(), axes->end(), static_cast<int64_t>(d)) != axes->end();
    if (listed && v.shape[d] != 1) return ctx.Invalid(absl::StrCat("cannot squeeze axis ", d, " of extent ", v.shape[d]));
    if (!(listed || (axes->empty() && v.shape[d] == 1))) shape.push_back(v.shape[d]);
  }
  return AddReshape(ctx, *x, shape);
}

absl::Status ConvertUnsqueeze(ImportContext& ctx) {
  auto x = ctx.Input(0);
  if (!x.ok()) return x.status();
  const Value& v = ctx.value(*x);
  std::vector<int64_t> in_shape = v.scalar ? std::vector<int64_t>{} : v.shape;
  auto given = ctx.IntsFromInputOrAttr(1, "axes", {});
  if (!given.ok()) return given.status();
  const std::vector<int64_t>& raw = *given;
  const int64_t out_rank = static_cast<int64_t>(in_shape.size() + raw.size());
  std::vector<int64_t> axes;
  for (int64_t a : raw) {
    auto n = NormalizeAxis(ctx, a, out_rank);
    if (!n.ok()) return n.status();
    axes.push_back(*n);
  }
  std::vector<int64_t> shape;
  size_t next = 0;
  for (int64_t d = 0; d < out_rank; ++d) {
    if (std::find(axes.begin(), axes.end(), d) != axes.end()) shape.push_back(1);
    else if (next < in_shape.size()) shape.push_back(in_shape[next++]);
    else return ctx.Invalid("axes are repeated");
  }
  return AddReshape(ctx, *x, shape);
}

absl::Status ConvertTranspose(ImportContext& ctx) {
  auto x = ctx.Input(0);
  if (!x.ok()) return x.status();
  const Value& v = ctx.value(*x);
  const int64_t rank = static_cast<int64_t>(v.shape.size());
  std::vector<int64_t> reversed;
  for (int64_t d = rank - 1; d >= 0; --d) reversed.push_back(d);
  auto perm = ctx.Ints("perm", reversed);
  if (!perm.ok()) return perm.status();
  std::vector<int64_t> sorted = *perm;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (static_cast<int64_t>(sorted.size()) != rank || sorted[d] != d)
      return ctx.Invalid(absl::StrCat("perm [", absl::StrJoin(*perm, ", "),
                                      "] is not a permutation of 0..", rank - 1));
    shape.push_back(v.shape[(*perm)[d]]);
  }
  return ctx.AddNode(Transpose{*perm}, {*x}, v.dtype, shape).status();
}

absl::Status ConvertConcat(ImportContext& ctx) {
  std::vector<ValueId> inputs;
  for (int i = 0; i < ctx.node().input_size(); ++i) {
    if (!ctx.HasInput(i)) continue;
    auto in = ctx.Input(i);
    if (!in.ok()) return in.status();
    inputs.push_back(*in);
  }
  if (inputs.empty()) return ctx.Invalid("needs at least one input");
  const Value& first = ctx.value(inputs[0]);
  auto axis_attr = ctx.Int("axis", ctx.opset() < 4 ? 1 : 0);  // required from opset 4
  if (!axis_attr.ok()) return axis_attr.status();
  auto axis = NormalizeAxis(ctx, *axis_attr, static_cast<int64_t>(first.shape.size()));
  if (!axis.ok()) return axis.status();
  std::vector<int64_t> shape = first.shape;
  shape[*axis] = 0;
  for (ValueId in : inputs) {
    const Value& v = ctx.value(in);
    if (v.shape.size() != first.shape.size() || v.dtype != first.dtype)
      return ctx.Invalid("inputs differ in rank or type");
    for (size_t d = 0; d < shape.size(); ++d)
      if (static_cast<int64_t>(d) != *axis && v.shape[d] != first.shape[d])
        return ctx.Invalid("inputs differ outside the concatenation axis");
    shape[*axis] += v.shape[*axis];
  }
  if (inputs.size() == 1) return ctx.Alias(inputs[0]);
  return ctx.AddNode(Concat{*axis}, inputs, first.dtype, shape).status();
}

absl::Status ConvertSlice(ImportContext& ctx) {
  auto x = ctx.Input(0);
  if (!x.ok()) return x.status();
  const Value& v = ctx.value(*x);
  const int64_t rank = static_cast<int64_t>(v.shape.size());
  std::vector<int64_t> starts, ends, axes, steps;
  if (ctx.opset() < 10) {
    auto s = ctx.Ints("starts", {});
    auto e = ctx.Ints("ends", {});
    auto a = ctx.Ints("axes", {});
    if (!s.ok()) return s.status();
    if (!e.ok()) return e.status();
    if (!a.ok()) return a.status();
    starts = *s, ends = *e, axes = *a;
  } else {
    auto s = ctx.ConstInts(1);
    auto e = ctx.ConstInts(2);
    if (!s.ok()) return s.status();
    if (!e.ok()) return e.status();
    starts = *s, ends = *e;
    if (ctx.HasInput(3)) {
      auto a = ctx.ConstInts(3);
      if (!a.ok()) return a.status();
      axes = *a;
    }
    if (ctx.HasInput(4)) {
      auto st = ctx.ConstInts(4);
      if (!st.ok()) return st.status();
      steps = *st;
    }
  }
  if (axes.empty())
    for (size_t d = 0; d < starts.size(); ++d) axes.push_back(static_cast<int64_t>(d));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    return ctx.Invalid("starts, ends, axes and steps differ in length");
  Slice op{std::vector<int64_t>(rank, 0), std::vector<int64_t>(rank, 1)};
  std::vector<int64_t> shape = v.shape;
  for (size_t i = 0; i < starts.size(); ++i) {
    auto axis = NormalizeAxis(ctx, axes[i], rank);
    if (!axis.ok()) return axis.status();
    const int64_t dim = v.shape[*axis], step = steps[i];
    if (step == 0) return ctx.Invalid("a step is 0");
    auto clamp = [&](int64_t p, bool is_end) {
      if (p < 0) p += dim;
      if (step > 0) return std::clamp<int64_t>(p, 0, dim);
      return std::clamp<int64_t>(p, -1, dim - 1) + (is_end ? 0 : 0);
    };
    int64_t s = clamp(starts[i], false), e = clamp(ends[i], true);
    if (starts[i] >= dim && step < 0) s = dim - 1;
    if (ends[i] < -dim && step < 0) e = -1;
    int64_t count = step > 0 ? (e - s + step - 1) / step : (s - e + (-step) - 1) / (-step);
    if (count <= 0) return ctx.Unsupported("the slice is empty");
    op.starts[*axis] = s;
    op.steps[*axis] = step;
    shape[*axis] = count;
  }
  return ctx.AddNode(op, {*x}, v.dtype, shape).status();
}

absl::Status ConvertGather(ImportContext& ctx) {
  auto data = ctx.Input(0);
  if (!data.ok()) return data.status();
  auto indices = ctx.Input(1);
  if (!indices.ok()) return indices.status();
  const Value& v = ctx.value(*data);
  const Value& ind = ctx.value(*indices);
  if (!ind.is_constant())
    return ctx.Unsupported("the indices must be constant (known at import)");
  if (ind.dtype.is_float()) return ctx.Invalid("the indices must be integers");
  auto axis_attr = ctx.Int("axis", 0);
  if (!axis_attr.ok()) return axis_attr.status();
  auto axis = NormalizeAxis(ctx, *axis_attr, static_cast<int64_t>(v.shape.size()));
  if (!axis.ok()) return axis.status();
  for (int64_t i = 0; i < ind.constant->num_elements(); ++i) {
    int64_t k = ind.constant->GetInt(i);
    if (k < -v.shape[*axis] || k >= v.shape[*axis])
      return ctx.Invalid(absl::StrCat("index ", k, " is out of range for extent ", v.shape[*axis]));
  }
  const bool scalar_index = ind.scalar;  // drops the axis
  std::vector<int64_t> shape(v.shape.begin(), v.shape.begin() + *axis);
  if (!scalar_index) shape.insert(shape.end(), ind.shape.begin(), ind.shape.end());
  shape.insert(shape.end(), v.shape.begin() + *axis + 1, v.shape.end());
  Gather op{*axis};
  if (scalar_index) {
    // Gather over a [1] index keeps the axis; the reshape drops it.
    std::vector<int64_t> kept(v.shape.begin(), v.shape.begin() + *axis);
    kept.push_back(1);
    kept.insert(kept.end(), v.shape.begin() + *axis + 1, v.shape.end());
    auto g = ctx.AddInternal(op, {*data, *indices}, v.dtype, kept, "gather");
    if (!g.ok()) return g.status();
    return AddReshape(ctx, *g, shape);
  }
  return ctx.AddNode(op, {*data, *indices}, v.dtype, shape).status();
}

absl::Status ConvertShape(ImportContext& ctx) {
  auto x = ctx.Input(0);
  if (!x.ok()) return x.status();
  const Value& v = ctx.value(*x);
  const int64_t rank = static_cast<int64_t>(v.shape.size());
  auto start_attr = ctx.Int("start", 0);
  auto end_attr = ctx.Int("end", rank);
  if (!start_attr.ok()) return start_attr.status();
  if (!end_attr.ok()) return end_attr.status();
  int64_t start = std::clamp<int64_t>(*start_attr < 0 ? *start_attr + rank : *start_attr, 0, rank);
  int64_t end = std::clamp<int64_t>(*end_attr < 0 ? *end_attr + rank : *end_attr, 0, rank);
  if (end <= start) return ctx.Unsupported("the shape slice is empty");
  auto out = te::NDArray::Empty(te::DType::Int64(), {end - start});
  if (!out.ok()) return out.status();
  for (int64_t d = start; d < end; ++d) out->SetInt(d - start, v.shape[d]);
  return ctx.Alias(ctx.AddConstant(*std::move(out), ctx.node().output(0)));
}

absl::Status ConvertConstant(ImportContext& ctx) {
  const onnx::AttributeProto* a = ctx.Attr("value");
  if (!a) {
    for (const char* name : {"value_float", "value_floats", "value_int", "value_ints"}) {
      const onnx::AttributeProto* b = ctx.Attr(name);
      if (!b) continue;
      bool is_float = name[6] == 'f';
      bool list = b->type() == onnx::AttributeProto::FLOATS || b->type() == onnx::AttributeProto::INTS;
      int64_t n = list ? (is_float ? b->floats_size() : b->ints_size()) : 1;
      if (n == 0) return ctx.Unsupported("an empty constant list is not supported");
      auto arr = te::NDArray::Empty(is_float ? te::DType::Float32() : te::DType::Int64(), {n});
      for (int64_t i = 0; i < n; ++i) {
        if (is_float) arr->SetDouble(i, list ? b->floats(i) : b->f());
        else arr->SetInt(i, list ? b->ints(i) : b->i());
      }
      return ctx.Alias(ctx.AddConstant(*std::move(arr), ctx.node().output(0), !list));
    }
    return ctx.Unsupported("only value, value_float(s) and value_int(s) constants are supported");
  }
  if (a->type() != onnx::AttributeProto::TENSOR) return ctx.Invalid("attribute 'value' must be a tensor");
  auto arr = TensorFromProto(a->t());
  if (!arr.ok()) return ctx.Error(arr.status().code(), arr.status().message());
  return ctx.Alias(ctx.AddConstant(*std::move(arr), ctx.node().output(0), a->t().dims_size() == 0));
}

absl::Status ConvertIdentity(ImportContext& ctx) {
  auto x = ctx.Input(0);
  if (!x.ok()) return x.status();
  // Dropout from opset 12 takes training_mode as its third input.
  if (ctx.node().op_type() == "Dropout" && ctx.HasInput(2)) {
    auto training = ctx.ConstInts(2);
    if (!training.ok()) return training.status();
    if (!training->empty() && (*training)[0] != 0)
      return ctx.Unsupported("training mode (random dropout) is not supported; export for inference");
  }
  // Dropout's mask output is not supported; inference Dropout is identity.
  for (int i = 1; i < ctx.node().output_size(); ++i)
    if (!ctx.node().output(i).empty()) return ctx.Unsupported("the mask output is not supported");
  return ctx.Alias(*x);
}

}  // namespace tuneforge::graph::onnx_import
