#include "measure/measure_proto.h"

#include <algorithm>
#include <array>

#include "absl/strings/str_cat.h"

namespace tuneforge::measure {

v1::MeasureOptions MeasureOptionsToProto(const MeasureOptions& options) {
  v1::MeasureOptions p;
  p.set_number(options.number);
  p.set_repeat(options.repeat);
  p.set_min_repeat_ms(options.min_repeat_ms);
  p.set_flush_cache(options.flush_cache);
  p.set_threads(options.threads);
  p.set_timeout_s(options.timeout_s);
  return p;
}

MeasureOptions MeasureOptionsFromProto(const v1::MeasureOptions& proto, MeasureOptions local) {
  if (proto.number() != 0) local.number = proto.number();
  if (proto.repeat() != 0) local.repeat = proto.repeat();
  if (proto.min_repeat_ms() != 0) local.min_repeat_ms = proto.min_repeat_ms();
  local.flush_cache = local.flush_cache || proto.flush_cache();
  if (proto.threads() != 0) local.threads = proto.threads();
  if (proto.timeout_s() != 0) local.timeout_s = proto.timeout_s();
  return local;
}

v1::MeasureResult MeasureResultToProto(const MeasureResult& result, const std::string& task_id) {
  v1::MeasureResult p;
  p.set_task_id(task_id);
  p.set_error_kind(ErrorKindToProto(result.error_kind));
  p.set_error(result.error);
  p.set_median_seconds(result.median_seconds);
  p.mutable_repeat_seconds()->Assign(result.repeat_seconds.begin(), result.repeat_seconds.end());
  p.set_compile_ms(result.compile_ms);
  p.set_max_abs_error(result.max_abs_error);
  p.set_correct(result.correct);
  p.set_number(result.number);
  p.set_max_rel_error(result.max_rel_error);
  p.set_run_wall_ms(result.run_wall_ms);
  p.set_timed_ms(result.timed_ms);
  return p;
}

absl::StatusOr<MeasureResult> MeasureResultFromProto(const v1::MeasureResult& proto) {
  std::optional<MeasureErrorKind> kind = ErrorKindFromProto(proto.error_kind());
  if (!kind)
    return absl::InvalidArgumentError(absl::StrCat(
        "error_kind ", static_cast<int>(proto.error_kind()),
        proto.error_kind() == v1::MEASURE_ERROR_KIND_UNSPECIFIED ? " (unset)" : " (unknown to this build)",
        " is not an error kind; use one of ", ErrorKindNameList()));
  MeasureResult r;
  r.error_kind = *kind;
  r.error = proto.error();
  r.median_seconds = proto.median_seconds();
  r.repeat_seconds.assign(proto.repeat_seconds().begin(), proto.repeat_seconds().end());
  r.compile_ms = proto.compile_ms();
  r.max_abs_error = proto.max_abs_error();
  r.correct = proto.correct();
  r.number = proto.number();
  r.max_rel_error = proto.max_rel_error();
  r.run_wall_ms = proto.run_wall_ms();
  r.timed_ms = proto.timed_ms();
  return r;
}

v1::Workload WorkloadSourceToProto(const WorkloadSource& source) {
  v1::Workload p;
  switch (source.kind) {
    case WorkloadSource::Kind::kUnset:
      break;
    case WorkloadSource::Kind::kSpec:
      p.set_spec(source.text);
      break;
    case WorkloadSource::Kind::kDefinition:
      p.set_definition(source.text);
      p.set_name(source.name);
      break;
  }
  return p;
}

WorkloadSource WorkloadSourceFromProto(const v1::Workload& proto) {
  switch (proto.source_case()) {
    case v1::Workload::kSpec:
      return WorkloadSource::Spec(proto.spec());
    case v1::Workload::kDefinition:
      return WorkloadSource::Definition(proto.definition(), proto.name());
    case v1::Workload::SOURCE_NOT_SET:
      break;
  }
  return {};
}

namespace {

// A dtype's two fields, as packed args and CUDA temporaries carry them.
template <typename Message>
void SetDType(const te::DType& dtype, Message& q) {
  q.set_scalar(static_cast<uint32_t>(dtype.scalar));
  q.set_lanes(dtype.lanes);
}

template <typename Message>
te::DType DTypeOf(const Message& q) {
  return te::DType{static_cast<te::ScalarType>(q.scalar()), q.lanes()};
}

}  // namespace

v1::BuiltKernel KernelObjectToProto(const codegen::CompiledObject& object) {
  v1::BuiltKernel p;
  p.set_symbol(object.symbol);
  p.set_triple(object.triple);
  p.set_object(object.object);
  p.set_prepack_symbol(object.prepack_symbol);
  p.set_shared_object(object.shared);
  for (const codegen::PackedArg& a : object.packed_args) {
    v1::PackedArg& q = *p.add_packed_args();
    q.set_name(a.name);
    SetDType(a.dtype, q);
    for (int64_t d : a.shape) q.add_shape(d);
  }
  for (const codegen::CudaKernel& k : object.cuda_kernels) {
    v1::CudaKernel& q = *p.add_cuda_kernels();
    q.set_name(k.name);
    for (int64_t d : k.grid) q.add_grid(d);
    for (int64_t d : k.block) q.add_block(d);
    q.set_shared_bytes(k.shared_bytes);
    q.set_local_bytes(k.local_bytes);
  }
  for (const codegen::CudaTemporary& t : object.cuda_temporaries) {
    v1::CudaTemporary& q = *p.add_cuda_temporaries();
    q.set_name(t.name);
    SetDType(t.dtype, q);
    q.set_elements(t.elements);
  }
  return p;
}

codegen::CompiledObject KernelObjectFromProto(const v1::BuiltKernel& proto) {
  codegen::CompiledObject o;
  o.symbol = proto.symbol();
  o.triple = proto.triple();
  o.object = proto.object();
  o.prepack_symbol = proto.prepack_symbol();
  o.shared = proto.shared_object();
  // Checked where they are allocated (the runner's PackedBuffers).
  for (const v1::PackedArg& q : proto.packed_args())
    o.packed_args.push_back(codegen::PackedArg{
        q.name(), DTypeOf(q), std::vector<int64_t>(q.shape().begin(), q.shape().end())});
  // Launch shapes are checked by the driver at launch (a bad one fails that
  // candidate); a missing dimension is 1.
  auto dims = [](const auto& field) {
    std::array<int64_t, 3> d = {1, 1, 1};
    for (int i = 0; i < std::min(3, field.size()); ++i) d[i] = field[i];
    return d;
  };
  for (const v1::CudaKernel& q : proto.cuda_kernels())
    o.cuda_kernels.push_back(
        codegen::CudaKernel{q.name(), dims(q.grid()), dims(q.block()), q.shared_bytes(), q.local_bytes()});
  for (const v1::CudaTemporary& q : proto.cuda_temporaries())
    o.cuda_temporaries.push_back(codegen::CudaTemporary{q.name(), DTypeOf(q), q.elements()});
  return o;
}

}  // namespace tuneforge::measure
