"""A stand-in for the few parts of PyTorch that cuptitrace's start-up hook
touches, recording what is done to them (no GPU, no PyTorch needed)."""
import os
import sys

events = []          # what happened, in order: ("import done",), ("enable", config, tid), ...
_import_finished = False

if os.environ.get("FAKE_TORCH_IMPORT_FAILS"):
    raise ImportError("fake torch refuses to import")

from . import autograd, compiler, cuda, overrides  # noqa: E402

if os.environ.get("FAKE_TORCH_BROKEN"):
    del autograd.profiler._enable_profiler  # the hook must fail, and say so

events.append(("import done",))
_import_finished = True
