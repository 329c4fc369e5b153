# The Debian package: `cpack -G DEB --config BUILD/CPackConfig.cmake`
# (docs/building.md). Installs under /usr in the layout of CMakeLists.txt here.
#
# Its dependencies are what the command and the libraries link dynamically,
# found by dpkg-shlibdeps (libc6, libstdc++6, libgcc-s1). libcupti is the
# exception: it comes with the CUDA Toolkit (NVIDIA's installer, or its own
# apt repository as cuda-cupti-MAJOR-MINOR), not from Debian, so no Debian
# package can be named for it. It is left out of the dependencies and found
# at run time through the library's RUNPATH (/usr/local/cuda/... and the
# build machine's toolkit) or LD_LIBRARY_PATH. The command itself does not
# link it: `cuptitrace --version`, convert, stats and merge work without CUDA;
# tracing needs the CUDA driver (the user's) and the toolkit's CUPTI.
set(CPACK_PACKAGE_NAME cuptitrace)
set(CPACK_PACKAGE_VENDOR "cuptitrace")
set(CPACK_PACKAGE_CONTACT "cuptitrace developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "CUDA tracer built on CUPTI: kernels, copies, API calls, NVTX, PyTorch operators")
set(CPACK_PACKAGE_DESCRIPTION
    "cuptitrace records what a CUDA program does on the GPU and the host, and writes a
timeline for Perfetto and chrome://tracing, SQLite, CSV and its own native format,
with nvprof- and nsys-like reports. The cuptitrace command runs a program under the
tracing library; PyTorch operators, Python lines and ranks of distributed jobs too.
Tracing needs the CUDA driver and the CUDA Toolkit's CUPTI (libcupti.so.13).")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# The install rules see the final prefix (/usr) and write below DESTDIR, so
# what names the prefix (the module file) names /usr.
set(CPACK_SET_DESTDIR ON)
set(CPACK_INSTALL_PREFIX /usr)
# Without debugging information: a twentieth of the size (build from source
# for a debuggable tracer).
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Where libcupti was found at build time: dpkg-shlibdeps takes the libraries
# there as private ones (no Debian package provides them).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS "${CUPTITRACE_CUPTI_RPATH}")
# --pytorch and --python-backtrace run a Python hook; `cuptitrace recipe` runs on Dask.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3-dask, python3-distributed")
include(CPack)
