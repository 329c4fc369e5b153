// Helpers for building CUPTI activity records by hand in decoder tests.
#pragma once

#include <cstring>

#include "collectors/cupti_versions.h"

namespace cuptitrace::testing {

// A CUPTI record struct with every byte zero, as CUPTI leaves unused fields.
template <typename T>
T zeroed() {
  T value;
  std::memset(&value, 0, sizeof(value));
  return value;
}

inline const CUpti_Activity* asActivity(const void* p) { return static_cast<const CUpti_Activity*>(p); }

}  // namespace cuptitrace::testing
