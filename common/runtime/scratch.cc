// The scratch memory kernels allocate for their intermediate buffers (a
// Winograd conv's transformed tiles, a multi-stage op's temporaries) in
// every call. Straight from malloc, a freed block at the top of the heap is
// given back to the system and the next call faults its pages in again:
// under virtualization that cost a Winograd conv five times its own time.
// Freed blocks are kept per thread instead, for the next call of the same
// size: no system call and no page fault in steady state.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <utility>
#include <vector>

#include "common/runtime/parallel.h"

namespace {

// A block's size sits in the bytes before what the kernel gets, so that
// tuneforge_free knows which size it returns; 64 keeps the data aligned.
constexpr size_t kHeaderBytes = 64;
constexpr size_t kAlignment = 64;
// What one thread keeps at most: enough for any kernel's temporaries of a
// typical model layer, little beside a worker's memory limit.
constexpr size_t kMaxKeptBytes = size_t{64} << 20;
constexpr size_t kMaxKeptBlocks = 32;
// Larger requests fail (null) instead of overflowing the size arithmetic.
constexpr size_t kMaxRequestBytes = size_t{1} << 48;

struct KeptBlocks {
  std::vector<std::pair<size_t, void*>> blocks;  // (rounded bytes, base)
  size_t bytes = 0;
  ~KeptBlocks() {
    for (auto& [size, base] : blocks) std::free(base);
  }
};

KeptBlocks& Kept() {
  thread_local KeptBlocks kept;
  return kept;
}

}  // namespace

extern "C" {

void* tuneforge_alloc(int64_t bytes) {
  if (bytes <= 0) bytes = 1;
  if (static_cast<uint64_t>(bytes) > kMaxRequestBytes) return nullptr;
  const size_t rounded = (static_cast<size_t>(bytes) + kAlignment - 1) / kAlignment * kAlignment;
  KeptBlocks& kept = Kept();
  for (size_t i = kept.blocks.size(); i-- > 0;) {
    if (kept.blocks[i].first != rounded) continue;
    void* base = kept.blocks[i].second;
    kept.blocks.erase(kept.blocks.begin() + static_cast<std::ptrdiff_t>(i));
    kept.bytes -= rounded;
    return static_cast<char*>(base) + kHeaderBytes;
  }
  void* base = std::aligned_alloc(kAlignment, rounded + kHeaderBytes);
  if (!base) return nullptr;
  *static_cast<size_t*>(base) = rounded;
  return static_cast<char*>(base) + kHeaderBytes;
}

void tuneforge_free(void* ptr) {
  if (!ptr) return;
  void* base = static_cast<char*>(ptr) - kHeaderBytes;
  const size_t rounded = *static_cast<size_t*>(base);
  KeptBlocks& kept = Kept();
  if (kept.bytes + rounded <= kMaxKeptBytes && kept.blocks.size() < kMaxKeptBlocks) {
    kept.blocks.emplace_back(rounded, base);
    kept.bytes += rounded;
    return;
  }
  std::free(base);
}

}  // extern "C"
