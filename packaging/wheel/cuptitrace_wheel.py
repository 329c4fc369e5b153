"""The build backend (PEP 517) of cuptitrace's Python wheel, kept in the tree:
it needs nothing from PyPI, only CMake and what building cuptitrace needs.

It installs a CMake build into a staging prefix (`cmake --install --strip`)
and packs that prefix, so that pip lays it out in the environment's prefix
as `cmake --install` would: bin/cuptitrace (a script of the wheel, on PATH),
lib/libcuptitrace*.so, share/cuptitrace/python (the --pytorch hook, the
recipes), include/ and lib/cmake/ (find_package). The command finds the rest
relative to itself, so a virtual environment holds the whole tool.

    pip install .                  configures and builds build-wheel/ first
                                   (CMAKE_ARGS: more -D options for it)
    pip install --no-build-isolation -C build-dir=build .
                                   packs the build tree build/ as it is: no build
"""
import base64
import csv
import hashlib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile

NAME = "cuptitrace"
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The environment module names the staging prefix: not for a wheel.
LEFT_OUT = ("share/modulefiles/",)
SUMMARY = "CUDA tracer built on CUPTI: kernels, copies, API calls, NVTX, PyTorch operators"


def _version():
    with open(os.path.join(SOURCE, "CMakeLists.txt"), encoding="utf-8") as f:
        found = re.search(r"project\(\s*cuptitrace\s+VERSION\s+([0-9.]+)", f.read())
    if not found:
        raise RuntimeError("cuptitrace wheel: no project(cuptitrace VERSION ...) in CMakeLists.txt")
    return found.group(1)


def _tag():
    """py3-none-PLATFORM: native code, no Python extension (any Python 3)."""
    return "py3-none-" + re.sub(r"[-.]", "_", sysconfig.get_platform())


def _run(args):
    print("cuptitrace wheel: " + " ".join(args), file=sys.stderr, flush=True)
    # CMake's own output goes to stderr too: pip shows it with -v or on failure.
    subprocess.run(args, check=True, stdout=sys.stderr)


def _build_tree(config_settings):
    """The build tree to install from, built here unless one was named."""
    named = (config_settings or {}).get("build-dir")
    if named:
        named = os.path.abspath(named)
        if not os.path.isfile(os.path.join(named, "cmake_install.cmake")):
            raise RuntimeError("cuptitrace wheel: %s is not a configured CMake build tree of cuptitrace" % named)
        return named  # packed as it is: building is its owner's business
    tree = os.path.join(SOURCE, "build-wheel")
    if not os.path.isfile(os.path.join(tree, "CMakeCache.txt")):
        configure = ["cmake", "-S", SOURCE, "-B", tree, "-DCMAKE_BUILD_TYPE=Release",
                     "-DCUPTITRACE_BUILD_TESTS=OFF", "-DCUPTITRACE_BUILD_SAMPLES=OFF", "-DCUPTITRACE_BUILD_BENCH=OFF"]
        if shutil.which("ninja"):
            configure += ["-G", "Ninja"]
        # CMAKE_ARGS: more -D options, as other CMake-based backends take them.
        _run(configure + shlex.split(os.environ.get("CMAKE_ARGS", "")))
    build = ["cmake", "--build", tree]
    if not os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL"):
        build += ["-j", str(os.cpu_count() or 2)]
    _run(build)
    return tree


def _metadata(version):
    return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: %s\nLicense: Apache-2.0\n"
            "Requires-Python: >=3.8\n\nThe cuptitrace command, its tracing library and its Python hook:\n"
            "`cuptitrace -- python train.py`, `cuptitrace --pytorch ops -- python train.py`.\n"
            "Tracing needs the CUDA driver and the CUDA Toolkit's CUPTI (libcupti.so.13).\n"
            % (NAME, version, SUMMARY))


def _wheel_file():
    return "Wheel-Version: 1.0\nGenerator: cuptitrace_wheel\nRoot-Is-Purelib: false\nTag: %s\n" % _tag()


def _dist_info_files(version):
    """The .dist-info folder's files but RECORD: {name: bytes}."""
    with open(os.path.join(SOURCE, "LICENSE"), "rb") as f:
        licence = f.read()
    return {"METADATA": _metadata(version).encode(), "WHEEL": _wheel_file().encode(), "LICENSE": licence}


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    version = _version()
    dist_info = "%s-%s.dist-info" % (NAME, version)
    os.makedirs(os.path.join(metadata_directory, dist_info), exist_ok=True)
    for name, data in _dist_info_files(version).items():
        with open(os.path.join(metadata_directory, dist_info, name), "wb") as f:
            f.write(data)
    return dist_info


def _entry(archive, records, path, data, mode):
    info = zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0))
    info.external_attr = (0o100000 | (mode & 0o777)) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, data)
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    records.append((path, "sha256=" + digest, str(len(data))))


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version = _version()
    tree = _build_tree(config_settings)
    data = "%s-%s.data" % (NAME, version)
    dist_info = "%s-%s.dist-info" % (NAME, version)
    wheel_name = "%s-%s-%s.whl" % (NAME, version, _tag())
    records = []
    with tempfile.TemporaryDirectory(prefix="cuptitrace-wheel-") as staging:
        _run(["cmake", "--install", tree, "--prefix", staging, "--strip"])
        os.makedirs(wheel_directory, exist_ok=True)
        with zipfile.ZipFile(os.path.join(wheel_directory, wheel_name), "w") as archive:
            for folder, dirs, files in os.walk(staging):
                dirs.sort()
                for name in sorted(files):
                    full = os.path.join(folder, name)
                    relative = os.path.relpath(full, staging).replace(os.sep, "/")
                    if relative.startswith(LEFT_OUT) or os.path.islink(full):
                        continue
                    # bin/ is the wheel's scripts (the environment's bin/),
                    # the rest its data (the environment's prefix).
                    if relative.startswith("bin/"):
                        target = data + "/scripts/" + relative[len("bin/"):]
                    else:
                        target = data + "/data/" + relative
                    with open(full, "rb") as f:
                        _entry(archive, records, target, f.read(), os.stat(full).st_mode)
            for name, content in _dist_info_files(version).items():
                _entry(archive, records, dist_info + "/" + name, content, 0o644)
            text = io.StringIO()
            csv.writer(text, lineterminator="\n").writerows(records + [(dist_info + "/RECORD", "", "")])
            info = zipfile.ZipInfo(dist_info + "/RECORD", date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o100644 << 16
            archive.writestr(info, text.getvalue(), compress_type=zipfile.ZIP_DEFLATED)
    return wheel_name
