#include "exporters/pftrace/proto_writer.h"

#include <algorithm>

namespace cuptitrace {

void ProtoWriter::resize(Nested n, size_t length, size_t width) {
  uint8_t* content = data_.get() + n.lengthAt + 4;
  if (width > 4) {
    reserve(width - 4);
    content = data_.get() + n.lengthAt + 4;  // grow() may have moved the buffer
  }
  uint8_t* to = data_.get() + n.lengthAt + width;
  if (to != content) std::memmove(to, content, length);
  uint8_t* p = data_.get() + n.lengthAt;
  uint64_t v = length;
  while (v >= 0x80) {
    *p++ = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  *p = static_cast<uint8_t>(v);
  size_ = n.lengthAt + width + length;
}

void ProtoWriter::grow(size_t n) {
  const size_t capacity = std::max({capacity_ * 2, size_ + n, size_t{4096}});
  std::unique_ptr<uint8_t[]> data(new uint8_t[capacity]);
  if (size_ != 0) std::memcpy(data.get(), data_.get(), size_);
  data_ = std::move(data);
  capacity_ = capacity;
}

}  // namespace cuptitrace
