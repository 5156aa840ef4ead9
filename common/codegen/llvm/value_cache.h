// Value numbering during emission. Lowered code repeats the same index
// arithmetic in every unrolled statement; handing LLVM one instruction per
// distinct value instead of one per occurrence makes every later pass
// cheaper. An entry is keyed by the node kind and its operand *values*, so a
// rebound variable (a new loop, a parallel task) never hits a stale entry.
// Entries live in scopes that follow the structured control flow: a value
// is reused only where the block that computed it dominates.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "llvm/IR/Type.h"
#include "llvm/IR/Value.h"

namespace tuneforge::codegen {

class ValueCache {
 public:
  enum class Kind : uint8_t { kBinary, kCast, kRamp, kBroadcast, kNot, kSelect, kCall, kAddress };
  struct Key {
    Kind kind;
    int op = 0;  // BinOp, Intrinsic, or a flag
    llvm::Type* type = nullptr;
    llvm::Value* a = nullptr;
    llvm::Value* b = nullptr;
    llvm::Value* c = nullptr;
    int64_t imm = 0;

    bool operator==(const Key&) const = default;
    template <class H>
    friend H AbslHashValue(H h, const Key& k) {
      return H::combine(std::move(h), k.kind, k.op, k.type, k.a, k.b, k.c, k.imm);
    }
  };

  llvm::Value* Find(const Key& key) const {
    auto it = map_.find(key);
    return it == map_.end() ? nullptr : it->second;
  }
  void Insert(const Key& key, llvm::Value* value) {
    if (map_.emplace(key, value).second) log_.push_back(key);
  }
  // Values computed inside a scope are forgotten when it ends.
  void PushScope() { marks_.push_back(log_.size()); }
  void PopScope() {
    size_t mark = marks_.back();
    marks_.pop_back();
    for (size_t i = mark; i < log_.size(); ++i) map_.erase(log_[i]);
    log_.resize(mark);
  }

 private:
  absl::flat_hash_map<Key, llvm::Value*> map_;
  std::vector<Key> log_;
  std::vector<size_t> marks_;
};

}  // namespace tuneforge::codegen
