#!/usr/bin/env bash
# Installs what building cuptitrace needs, from Debian/Ubuntu packages:
# a C++17 compiler, CMake, Ninja, spdlog and fmt (used header-only),
# nlohmann_json, CLI11 (header-only), zlib and SQLite (their static libraries,
# linked into the tracer), and Catch2. The CUDA Toolkit (CUPTI, nvcc, NVTX3)
# is not a distribution package here: it is checked for, and its absence named.
set -euo pipefail

# clang and its runtime libraries build the libFuzzer targets (scripts/fuzz.sh);
# gcc-12-offload-nvptx (GCC's OpenACC offloading to NVIDIA GPUs) the OpenACC
# sample of the GPU tests (samples/openacc).
# Dask (python3-dask, python3-distributed) runs `cuptitrace recipe` and its
# tests; pandas the SQLite test's queries as Nsight's examples write them;
# GNU time measures peak memory in scripts/bench-recipe.sh. They go into
# /usr/bin/python3's packages: `cuptitrace recipe` finds that Python when
# python3 on PATH (pyenv, a virtualenv) has no Dask.
# The install tests (tests/install): dpkg-dev and file make the Debian package
# with CPack (dpkg-shlibdeps names its dependencies), python3-venv the virtual
# environments the wheel is installed into, lmod loads the module file.
# Chromium renders the HTML report headless in its tests (tests/html) and
# makes the docs' screenshots (scripts/html-screenshots.sh): about 120 MB.
packages=(g++ cmake ninja-build libspdlog-dev libfmt-dev nlohmann-json3-dev libcli11-dev zlib1g-dev catch2 libsqlite3-dev python3 clang libclang-rt-dev
  python3-dask python3-distributed python3-pandas time dpkg-dev file python3-venv lmod chromium)
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then sudo="sudo"; else
    echo "install-deps: run as root (or install sudo) to install: ${packages[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# Debian bookworm's name; where there is no such package the OpenACC sample is skipped.
if apt-cache show gcc-12-offload-nvptx >/dev/null 2>&1; then packages+=(gcc-12-offload-nvptx); fi
$sudo apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
echo "install-deps: installed ${packages[*]}"

cuda=${CUDAToolkit_ROOT:-/usr/local/cuda}
if [ ! -f "$cuda/include/cupti.h" ]; then
  echo "install-deps: WARNING: no CUDA Toolkit with CUPTI at $cuda (cupti.h missing)." >&2
  echo "install-deps: install the CUDA Toolkit, or set CUDAToolkit_ROOT to where it is." >&2
fi
