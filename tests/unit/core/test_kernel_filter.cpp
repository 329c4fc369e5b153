// Kernel filters: ECMAScript regexes searched in demangled kernel names.
#include <catch2/catch.hpp>

#include "core/kernel_filter.h"

using namespace cuptitrace;

namespace {
// void gemm_kernel<float, 128>(float const*, float*, int)
const char* kGemm = "_Z11gemm_kernelIfLi128EEvPKfPfi";
// add(float*, float const*, int)
const char* kAdd = "_Z3addPfPKfi";
const char* kPlainC = "vector_add";  // extern "C": not mangled
}  // namespace

TEST_CASE("kernel filter: no pattern keeps every kernel") {
  KernelFilter f;
  CHECK_FALSE(f.active());
  CHECK(f.keep(kGemm));
  REQUIRE(f.set("", ""));
  CHECK_FALSE(f.active());
  CHECK(f.keep(kAdd));
}

TEST_CASE("kernel filter: patterns are searched in the demangled name") {
  KernelFilter f;
  // "<float, 128>" exists only in the demangled form.
  REQUIRE(f.set("gemm_kernel<float, 128>", ""));
  CHECK(f.active());
  CHECK(f.keep(kGemm));
  CHECK_FALSE(f.keep(kAdd));
  CHECK_FALSE(f.keep(kPlainC));
  // Searched, not matched whole: a part of the name is enough; anchors work.
  REQUIRE(f.set("^add\\(", ""));
  CHECK(f.keep(kAdd));
  CHECK_FALSE(f.keep(kGemm));
  REQUIRE(f.set("vector", ""));
  CHECK(f.keep(kPlainC));
  // The mangled spelling is not what is searched.
  REQUIRE(f.set("_Z3add", ""));
  CHECK_FALSE(f.keep(kAdd));
}

TEST_CASE("kernel filter: exclude wins over include") {
  KernelFilter f;
  REQUIRE(f.set("", "gemm|vector"));
  CHECK_FALSE(f.keep(kGemm));
  CHECK_FALSE(f.keep(kPlainC));
  CHECK(f.keep(kAdd));
  REQUIRE(f.set("kernel|add", "float, 128"));
  CHECK_FALSE(f.keep(kGemm));  // included, then excluded
  CHECK(f.keep(kAdd));
  CHECK(f.keep(kPlainC));      // "vector_add" holds "add"
}

TEST_CASE("kernel filter: a bad regex is refused and the filter is off") {
  std::string why;
  CHECK_FALSE(validKernelPattern("gemm(", &why));
  CHECK_FALSE(why.empty());
  CHECK(validKernelPattern(""));
  CHECK(validKernelPattern("a|b[0-9]+"));
  CHECK_FALSE(validKernelPattern(std::string(kMaxKernelPatternBytes + 1, 'a')));

  KernelFilter f;
  REQUIRE(f.set("add", ""));
  why.clear();
  CHECK_FALSE(f.set("add", "[unclosed", &why));
  CHECK_THAT(why, Catch::Contains("CUPTITRACE_KERNEL_EXCLUDE"));
  CHECK_FALSE(f.active());  // no half filter: both patterns are off
  CHECK(f.keep(kGemm));
  CHECK_FALSE(f.set("*x", "", &why));
  CHECK_THAT(why, Catch::Contains("CUPTITRACE_KERNEL_INCLUDE"));
}
