// The C library calls the osrt wrappers measure, by the name a user knows
// them by (the fortified and 64-bit variants count as the plain call),
// stored in ApiRecord::cbid and in native traces. The number crosses from
// the preload library to the tracer (preload/osrt_abi.h): append only.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cuptitrace {

enum class OsrtCall : uint16_t {
  Open, Openat, Creat, Read, Pread, Readv, Write, Pwrite, Writev,
  Fopen, Fclose, Fread, Fwrite, Fgets, Fflush, Fsync, Fdatasync,
  Nanosleep, ClockNanosleep, Usleep, Sleep,
  MutexLock, CondWait, CondTimedwait, CondClockwait,
  Ioctl, Poll, Ppoll, Select, Pselect, EpollWait, EpollPwait,
  Count
};
inline constexpr size_t kOsrtCallCount = static_cast<size_t>(OsrtCall::Count);

}  // namespace cuptitrace
