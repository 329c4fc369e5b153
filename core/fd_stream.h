// An output stream buffer over a file descriptor that remembers the first
// write error instead of dropping bytes silently.
//
// With write threads, the copying into the page cache (and any wait on a slow
// disk) runs beside the encoding: each full buffer gets its place in the file
// (the bytes before it) and one of the threads writes it there (pwrite) while
// the encoder fills another. Several threads copy at once, since one thread
// copies a few GB/s at most while the encoders of a large file make more.
// The file's bytes are the same whatever the number of threads.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <streambuf>
#include <thread>
#include <vector>

namespace cuptitrace {

class FdStreamBuf : public std::streambuf {
 public:
  // Writes to `fd` from its current size on (a new, empty file), with
  // `writeThreads` threads of their own (0: the write calls made here).
  // Threads that cannot be had are done without.
  FdStreamBuf(int fd, unsigned writeThreads, size_t bufferBytes = kDefaultBufferBytes);
  ~FdStreamBuf() override;
  FdStreamBuf(const FdStreamBuf&) = delete;
  FdStreamBuf& operator=(const FdStreamBuf&) = delete;

  // 0, or the errno of the first write that failed; every byte handed over
  // so far is written (or failed) on return.
  int error();

  // The next `n` bytes of the file, taken from where they are rather than
  // copied into a buffer (large blocks that are already laid out, such as a
  // trace store's chunks), written by the calling thread at their place
  // while the threads write the buffers before them. 0, or -1 once a write
  // failed.
  int putHeld(const char* p, size_t n);
  // The next `n` bytes of the file copied from file `srcFd` at `srcOffset` by
  // the kernel (copy_file_range; read and written here where it cannot), with
  // no page of either mapped into the process, by the calling thread as
  // putHeld. 0, or -1 once a write failed.
  int putFrom(int srcFd, uint64_t srcOffset, size_t n);

  static constexpr size_t kDefaultBufferBytes = size_t{1} << 20;

 protected:
  int_type overflow(int_type ch) override;
  int sync() override;

 private:
  struct Job {
    std::vector<char> bytes;
    size_t size = 0;
    uint64_t offset = 0;
  };

  int handOver();
  // The place in the file of the next `n` bytes, written by the caller.
  int reserve(size_t n, uint64_t& offset);
  // A range of another file copied to `offset` (UINT64_MAX: the file's position).
  int copyAt(int srcFd, uint64_t srcOffset, size_t n, uint64_t offset);
  void waitIdle();
  void writeLoop();
  // 0, or -1 with the first error kept (later bytes are dropped: the file fails).
  int writeAt(const char* p, size_t n, uint64_t offset);
  void keepError(int error);

  const int fd_;
  const size_t bufferBytes_;
  std::vector<char> buffer_;  // being filled
  uint64_t offset_ = 0;       // where buffer_'s bytes go in the file
  std::vector<std::thread> writers_;

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Job> queue_;               // full buffers not yet taken by a writer
  std::vector<std::vector<char>> free_;  // written buffers, to fill again
  size_t inFlight_ = 0;                 // buffers handed over and not yet written
  size_t buffers_ = 1;                  // buffers made: at most twice the writers, plus one
  int error_ = 0;                       // the first write error
  bool stop_ = false;
};

}  // namespace cuptitrace
