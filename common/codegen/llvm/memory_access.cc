// IrEmitter: loads and stores. A scalar index is a scalar access; a
// stride-1 Ramp is a contiguous vector access; a load with a small constant
// stride is one contiguous load of the span and a shuffle; any other vector
// index is a gather / scatter. Inside a vector select's arm (mask_ set)
// loads touch only the selected lanes, but for those that stay inside their
// buffer whatever the lanes (InBounds).
#include <algorithm>
#include <optional>
#include <vector>

#include "common/codegen/llvm/ir_emitter.h"
#include "common/lower/passes/vectorize.h"
#include "common/te/buffer.h"
#include "llvm/IR/Constants.h"

namespace tuneforge::codegen {
namespace {

using lower::ContiguousBase;
using lower::RampStart;
using lower::RampStartOf;
using lower::UniformIndex;

// An index with a constant stride of 2 to lower::kMaxSpanLoadStride, loaded as
// its span's contiguous vector and a shuffle (a strided conv's input rows).
// As a gather under a mask (a padded border's select) LLVM scalarizes it
// into a branch per lane: thousands of blocks per kernel and seconds of
// register allocation, where the span load is one instruction or a few.
std::optional<RampStart> SmallStrideStart(const te::Expr& index) {
  std::optional<RampStart> r = RampStartOf(index);
  if (r && r->stride >= 2 && r->stride <= lower::kMaxSpanLoadStride) return r;
  return std::nullopt;
}

}  // namespace

llvm::Value* IrEmitter::FromStorage(llvm::Value* v, te::DType t) {
  if (!t.is_bool()) return v;
  return b_.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
}

llvm::Value* IrEmitter::ToStorage(llvm::Value* v, te::DType t) {
  if (!t.is_bool()) return v;
  return b_.CreateZExt(v, StorageType(t));
}

llvm::Value* IrEmitter::ElementPointer(const te::Buffer& buffer, llvm::Value* index) {
  llvm::Value* base = buffers_.at(buffer.get());
  llvm::Type* element = StorageType(buffer->dtype.element());
  // Offsets are signed 64-bit (narrower integer indices are widened).
  llvm::Type* index_type = index->getType()->getWithNewType(b_.getInt64Ty());
  if (index->getType() != index_type) index = b_.CreateSExt(index, index_type);
  // Under a mask the address of an unselected lane may lie outside the
  // buffer: an inbounds GEP would make it poison, so use a plain one.
  if (mask_) return b_.CreateGEP(element, base, index);
  return Cached({ValueCache::Kind::kAddress, 0, element, base, index},
                [&] { return b_.CreateInBoundsGEP(element, base, index); });
}

bool IrEmitter::InBounds(const te::Buffer& buffer, const te::Expr& index) const {
  std::optional<te::arith::IntInterval> range = te::arith::ConstBounds(index, var_bounds_);
  return range && range->lo >= 0 && range->hi < buffer->alloc_elements();
}

llvm::Value* IrEmitter::EmitNode(const te::BufferLoad& n, te::DType t) {
  if (t.lanes == 1) return EmitScalarLoad(n.buffer, n.indices[0]);
  return EmitVectorLoad(n.buffer, n.indices[0], t);
}

llvm::Value* IrEmitter::EmitScalarLoad(const te::Buffer& buffer, const te::Expr& index) {
  te::DType t = buffer->dtype.element();
  llvm::Type* type = StorageType(t);
  llvm::Align align(t.bytes());
  if (!mask_ || InBounds(buffer, index)) {
    llvm::Value* loaded = b_.CreateAlignedLoad(type, ElementPointer(buffer, Emit(index)), align);
    AnnotateAccess(loaded, buffer);
    return FromStorage(loaded, t);
  }
  // A scalar feeding a masked vector: load only if some lane is selected.
  llvm::Value* any = b_.CreateOrReduce(mask_);
  llvm::Function* fn = b_.GetInsertBlock()->getParent();
  auto* load_bb = llvm::BasicBlock::Create(ctx_, "masked.scalar", fn);
  auto* merge_bb = llvm::BasicBlock::Create(ctx_, "masked.scalar.end", fn);
  llvm::BasicBlock* skip_bb = b_.GetInsertBlock();
  b_.CreateCondBr(any, load_bb, merge_bb);
  b_.SetInsertPoint(load_bb);
  llvm::Value* loaded = b_.CreateAlignedLoad(type, ElementPointer(buffer, Emit(index)), align);
  AnnotateAccess(loaded, buffer);
  llvm::BasicBlock* load_end = b_.GetInsertBlock();
  b_.CreateBr(merge_bb);
  b_.SetInsertPoint(merge_bb);
  llvm::PHINode* phi = b_.CreatePHI(type, 2);
  phi->addIncoming(loaded, load_end);
  phi->addIncoming(llvm::Constant::getNullValue(type), skip_bb);
  return FromStorage(phi, t);
}

llvm::Value* IrEmitter::EmitVectorLoad(const te::Buffer& buffer, const te::Expr& index,
                                       te::DType t) {
  llvm::Type* type = StorageType(t);
  llvm::Align align(t.bytes());
  // A load inside its buffer whatever the lanes: the select after it
  // discards the unselected lanes, so it needs no mask.
  llvm::Value* mask = mask_ && !InBounds(buffer, index) ? mask_ : nullptr;
  if (mask && llvm::cast<llvm::FixedVectorType>(mask->getType())->getNumElements() !=
                  static_cast<unsigned>(t.lanes)) {
    // Cannot happen in a validated program (lanes agree inside an arm), but
    // stay safe: any selected lane enables the whole access.
    mask = b_.CreateVectorSplat(t.lanes, b_.CreateOrReduce(mask));
  }
  llvm::Value* passthru = llvm::Constant::getNullValue(type);
  if (std::optional<te::Expr> base = ContiguousBase(index)) {
    llvm::Value* ptr = ElementPointer(buffer, Emit(*base));
    llvm::Value* v = mask ? static_cast<llvm::Value*>(
                                b_.CreateMaskedLoad(type, ptr, align, mask, passthru))
                          : b_.CreateAlignedLoad(type, ptr, align);
    AnnotateAccess(v, buffer);
    return FromStorage(v, t);
  }
  if (std::optional<te::Expr> uniform = UniformIndex(index)) {
    return b_.CreateVectorSplat(t.lanes, EmitScalarLoad(buffer, *uniform));
  }
  if (std::optional<RampStart> strided = SmallStrideStart(index)) {
    return FromStorage(EmitStridedLoad(buffer, strided->base, strided->stride, t, mask), t);
  }
  // Under a mask, the unselected lanes read element 0 (always inside the
  // buffer) and are zeroed after: a gather of all lanes is straight-line
  // code where LLVM scalarizes gathers, a masked one a branch per lane.
  llvm::Value* offsets = Emit(index);
  if (mask) offsets = b_.CreateSelect(mask, offsets, llvm::Constant::getNullValue(offsets->getType()));
  llvm::Value* v = b_.CreateMaskedGather(type, ElementPointer(buffer, offsets), align, AllLanes(t.lanes), passthru);
  AnnotateAccess(v, buffer);
  if (mask) v = b_.CreateSelect(mask, v, passthru);
  return FromStorage(v, t);
}

// The width a span of `span` elements is loaded at. On x86 with AVX, whose
// masked loads read only their enabled lanes, a span of odd length is loaded
// at a register-friendly width (the next power of two, or whole registers
// past one) with the positions past it off: LLVM splits a <55 x float> load
// into five loads and its even-lane shuffle into per-lane inserts, where a
// masked <64 x float> becomes four loads and two-source permutes. A 28-lane
// stride-2 input row (a strided depthwise conv's) then compiled in a third
// of the time, to half the instructions. Elsewhere (AArch64 has no masked
// loads; LLVM would load each lane alone) the span is loaded as it is.
int IrEmitter::SpanLoadWidth(int span, int element_bytes) const {
  if (!target_.is_x86() || target_.vector_bits < 256) return span;
  const int register_lanes = std::max(1, target_.vector_lanes(element_bytes));
  if (span > register_lanes) return (span + register_lanes - 1) / register_lanes * register_lanes;
  int width = 1;
  while (width < span) width *= 2;
  return width;
}

// A masked span past this many registers is loaded a register of lanes at a
// time (EmitStridedLoadInParts).
constexpr int kMaxMaskedSpanRegisters = 4;

llvm::Value* IrEmitter::EmitStridedLoad(const te::Buffer& buffer, const te::Expr& base, int64_t stride,
                                        te::DType t, llvm::Value* mask) {
  const int lanes = t.lanes;
  const int span = static_cast<int>((lanes - 1) * stride + 1);
  const int width = SpanLoadWidth(span, t.bytes());
  const int register_lanes = std::max(1, target_.vector_lanes(t.bytes()));
  if (mask && target_.is_x86() && width > kMaxMaskedSpanRegisters * register_lanes)
    return EmitStridedLoadInParts(buffer, base, stride, t, mask, register_lanes);
  llvm::Type* span_type = llvm::FixedVectorType::get(StorageType(t.element()), width);
  llvm::Align align(t.bytes());
  llvm::Value* ptr = ElementPointer(buffer, Emit(base));
  llvm::Value* loaded = nullptr;
  if (mask) {
    // Lane i's mask at span position i * stride; the positions between (and
    // past the span) are not needed and stay off, so nothing outside the
    // selected lanes is read.
    std::vector<int> spread(static_cast<size_t>(width), lanes);  // lane `lanes` of the shuffle: false
    for (int i = 0; i < lanes; ++i) spread[static_cast<size_t>(i * stride)] = i;
    llvm::Value* span_mask = b_.CreateShuffleVector(mask, llvm::Constant::getNullValue(mask->getType()), spread);
    loaded = b_.CreateMaskedLoad(span_type, ptr, align, span_mask, llvm::Constant::getNullValue(span_type));
  } else if (width > span) {
    // Every position of the span is inside the buffer (its first and last
    // lanes are read); the ones past it are off.
    std::vector<llvm::Constant*> in_span;
    for (int i = 0; i < width; ++i) in_span.push_back(b_.getInt1(i < span));
    loaded = b_.CreateMaskedLoad(span_type, ptr, align, llvm::ConstantVector::get(in_span),
                                 llvm::PoisonValue::get(span_type));
  } else {
    // Every lane is read, so every element between the first and the last is
    // inside the buffer too.
    loaded = b_.CreateAlignedLoad(span_type, ptr, align);
  }
  AnnotateAccess(loaded, buffer);
  std::vector<int> every(static_cast<size_t>(lanes));
  for (int i = 0; i < lanes; ++i) every[static_cast<size_t>(i)] = static_cast<int>(i * stride);
  return b_.CreateShuffleVector(loaded, every);
}

// A masked strided row wider than kMaxMaskedSpanRegisters registers (a
// 56-lane vector across a stride-2 input row whose border test differs
// between lanes), loaded `part_lanes` lanes at a time and the parts joined.
// As one masked load of a 112-float span and its even-lane shuffle,
// instruction selection took 2-4 s over a stem candidate's 646 such loads;
// in parts, 1.2 s, and the kernel ran 20 % faster.
llvm::Value* IrEmitter::EmitStridedLoadInParts(const te::Buffer& buffer, const te::Expr& base, int64_t stride,
                                               te::DType t, llvm::Value* mask, int part_lanes) {
  llvm::Value* joined = nullptr;
  int joined_lanes = 0;
  for (int first = 0; first < t.lanes; first += part_lanes) {
    const int n = std::min(part_lanes, t.lanes - first);
    std::vector<int> lanes_of_part(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) lanes_of_part[static_cast<size_t>(i)] = first + i;
    te::DType part_type = t;
    part_type.lanes = n;
    llvm::Value* part = EmitStridedLoad(buffer, base + te::IntConst(first * stride, base.dtype()), stride, part_type,
                                        b_.CreateShuffleVector(mask, lanes_of_part));
    if (!joined) {
      joined = part;
      joined_lanes = n;
      continue;
    }
    // Both widened to the joined length (the lanes past each one unused),
    // then one two-source shuffle takes the first's lanes and the part's.
    const int total = joined_lanes + n;
    std::vector<int> widen_joined(static_cast<size_t>(total), llvm::PoisonMaskElem);
    std::vector<int> widen_part(static_cast<size_t>(total), llvm::PoisonMaskElem);
    std::vector<int> both(static_cast<size_t>(total));
    for (int i = 0; i < total; ++i) {
      if (i < joined_lanes) widen_joined[static_cast<size_t>(i)] = i;
      if (i < n) widen_part[static_cast<size_t>(i)] = i;
      both[static_cast<size_t>(i)] = i < joined_lanes ? i : total + (i - joined_lanes);
    }
    joined = b_.CreateShuffleVector(b_.CreateShuffleVector(joined, widen_joined),
                                    b_.CreateShuffleVector(part, widen_part), both);
    joined_lanes = total;
  }
  return joined;
}

void IrEmitter::EmitStore(const lower::Store& n) {
  te::DType t = n.value.dtype();
  llvm::Value* value = ToStorage(Emit(n.value), t);
  llvm::Align align(t.bytes());
  const te::Expr& index = n.indices[0];
  if (t.lanes == 1) {
    AnnotateAccess(b_.CreateAlignedStore(value, ElementPointer(n.buffer, Emit(index)), align), n.buffer);
    return;
  }
  if (std::optional<te::Expr> base = ContiguousBase(index)) {
    AnnotateAccess(b_.CreateAlignedStore(value, ElementPointer(n.buffer, Emit(*base)), align), n.buffer);
    return;
  }
  if (std::optional<te::Expr> uniform = UniformIndex(index)) {
    // All lanes write one element: the last lane wins, as in a scatter.
    llvm::Value* last = b_.CreateExtractElement(value, t.lanes - 1);
    AnnotateAccess(b_.CreateAlignedStore(last, ElementPointer(n.buffer, Emit(*uniform)), align), n.buffer);
    return;
  }
  AnnotateAccess(b_.CreateMaskedScatter(value, ElementPointer(n.buffer, Emit(index)), align,
                                        AllLanes(t.lanes)),
                 n.buffer);
}

}  // namespace tuneforge::codegen
