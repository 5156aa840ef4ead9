#include "common/te/buffer.h"

namespace tuneforge::te {

std::vector<int64_t> BufferNode::dense_strides() const {
  std::vector<int64_t> s(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * shape[i + 1];
  return s;
}

std::vector<int64_t> BufferNode::effective_strides() const {
  return strides.empty() ? dense_strides() : strides;
}

int64_t BufferNode::alloc_elements() const {
  if (shape.empty()) return 1;
  std::vector<int64_t> s = effective_strides();
  int64_t last = 0;  // offset of the last element, + 1
  for (size_t i = 0; i < shape.size(); ++i) last += (shape[i] - 1) * s[i];
  return last + 1;
}

}  // namespace tuneforge::te
