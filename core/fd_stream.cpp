#include "core/fd_stream.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>
#include <utility>

#include "core/ordered_work.h"

namespace cuptitrace {

FdStreamBuf::FdStreamBuf(int fd, unsigned writeThreads, size_t bufferBytes)
    : fd_(fd), bufferBytes_(bufferBytes == 0 ? kDefaultBufferBytes : bufferBytes), buffer_(bufferBytes_) {
  setp(buffer_.data(), buffer_.data() + buffer_.size());
  if (writeThreads == 0) return;
  // Places in the file need a file that has them (not a pipe).
  const off_t start = ::lseek(fd_, 0, SEEK_CUR);
  if (start < 0) return;
  offset_ = static_cast<uint64_t>(start);
  for (unsigned i = 0; i < writeThreads; ++i) {
    try {
      writers_.emplace_back([this] { writeLoop(); });
    } catch (const std::system_error&) {  // fewer threads, or the writes made here
      break;
    }
  }
}

FdStreamBuf::~FdStreamBuf() {
  sync();
  if (writers_.empty()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  for (std::thread& t : writers_) t.join();
}

int FdStreamBuf::error() {
  if (!writers_.empty()) waitIdle();
  std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

FdStreamBuf::int_type FdStreamBuf::overflow(int_type ch) {
  if (handOver() != 0) return traits_type::eof();
  if (!traits_type::eq_int_type(ch, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(ch);
    pbump(1);
  }
  return traits_type::not_eof(ch);
}

// Everything written so far is in the file (or failed) on return.
int FdStreamBuf::sync() {
  const int handed = handOver();
  return handed != 0 || error() != 0 ? -1 : 0;
}

// The bytes gathered go to the file: written here, or handed to a writer
// thread with their place in the file, and another buffer taken to fill.
int FdStreamBuf::handOver() {
  const size_t n = static_cast<size_t>(pptr() - pbase());
  if (writers_.empty()) {
    const int result = writeAt(pbase(), n, UINT64_MAX);
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return result;
  }
  std::unique_lock<std::mutex> lock(mutex_);
  if (n == 0 || error_ != 0) {
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return error_ != 0 ? -1 : 0;
  }
  Job job;
  job.bytes = std::move(buffer_);
  job.size = n;
  job.offset = offset_;
  offset_ += n;
  queue_.push_back(std::move(job));
  ++inFlight_;
  changed_.notify_all();
  // Another buffer: a written one, a new one while there are few, or the
  // first one a writer gives back.
  if (free_.empty() && buffers_ < 2 * writers_.size() + 1) {
    ++buffers_;
    lock.unlock();
    buffer_ = std::vector<char>(bufferBytes_);
  } else {
    changed_.wait(lock, [&] { return !free_.empty(); });
    buffer_ = std::move(free_.back());
    free_.pop_back();
    lock.unlock();
  }
  setp(buffer_.data(), buffer_.data() + buffer_.size());
  return 0;
}

int FdStreamBuf::putHeld(const char* p, size_t n) {
  uint64_t offset = 0;
  if (reserve(n, offset) != 0) return -1;
  return n == 0 ? 0 : writeAt(p, n, offset);
}

int FdStreamBuf::putFrom(int srcFd, uint64_t srcOffset, size_t n) {
  uint64_t offset = 0;
  if (reserve(n, offset) != 0) return -1;
  return n == 0 ? 0 : copyAt(srcFd, srcOffset, n, offset);
}

// The place of `n` bytes written by the calling thread, after the bytes
// gathered (handed over first); UINT64_MAX without write threads: at the
// file's position, the writes all made here in order.
//
// Written here beside the buffers the threads still write: there is nothing
// to encode meanwhile, and the kernel takes one write into a file at a time
// (its inode lock), so the threads would only queue for it. On the lent
// H200, the launch loop's native trace (600 MB) at exit took 0.034 s a
// million records with its chunks handed to 4 threads, 0.020 with one
// writer thread (written by the calling one).
int FdStreamBuf::reserve(size_t n, uint64_t& offset) {
  if (handOver() != 0) return -1;
  if (writers_.empty()) {
    offset = UINT64_MAX;
    return error_ != 0 ? -1 : 0;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (error_ != 0) return -1;
  offset = offset_;
  offset_ += n;
  return 0;
}

int FdStreamBuf::copyAt(int srcFd, uint64_t srcOffset, size_t n, uint64_t offset) {
  if (writers_.empty() && error_ != 0) return -1;
  // The kernel copies between the two files' pages (or shares their blocks).
  auto in = static_cast<off64_t>(srcOffset);
  auto out = static_cast<off64_t>(offset);
  while (n > 0) {
    const ssize_t c = ::copy_file_range(srcFd, &in, fd_, offset == UINT64_MAX ? nullptr : &out, n, 0);
    if (c < 0 && errno == EINTR) continue;
    if (c <= 0) break;  // the rest by hand: no such call, other file systems, a short source
    n -= static_cast<size_t>(c);
  }
  if (n == 0) return 0;
  // Read and written here, a block at a time.
  std::vector<char> block(std::min<size_t>(n, bufferBytes_));
  while (n > 0) {
    const ssize_t r = ::pread(srcFd, block.data(), std::min(n, block.size()), in);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      keepError(r < 0 ? errno : EIO);
      return -1;
    }
    if (writeAt(block.data(), static_cast<size_t>(r), offset == UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(out)) != 0)
      return -1;
    in += r;
    out += r;
    n -= static_cast<size_t>(r);
  }
  return 0;
}

void FdStreamBuf::waitIdle() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return inFlight_ == 0; });
}

void FdStreamBuf::writeLoop() {
  const OwnThread own("trace writer");
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return !queue_.empty() || stop_; });
    if (queue_.empty()) return;
    Job job = std::move(queue_.front());
    queue_.pop_front();
    const bool failed = error_ != 0;
    lock.unlock();
    if (!failed) writeAt(job.bytes.data(), job.size, job.offset);
    lock.lock();
    free_.push_back(std::move(job.bytes));
    --inFlight_;
    changed_.notify_all();
  }
}

void FdStreamBuf::keepError(int error) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (error_ == 0) error_ = error;
}

int FdStreamBuf::writeAt(const char* p, size_t n, uint64_t offset) {
  if (writers_.empty() && error_ != 0) return -1;
  const char* end = p + n;
  while (p < end) {
    const size_t left = static_cast<size_t>(end - p);
    const ssize_t w = offset == UINT64_MAX ? ::write(fd_, p, left)
                                           : ::pwrite(fd_, p, left, static_cast<off_t>(offset));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      keepError(w < 0 ? errno : ENOSPC);
      return -1;
    }
    p += w;
    if (offset != UINT64_MAX) offset += static_cast<uint64_t>(w);
  }
  return 0;
}

}  // namespace cuptitrace
