"""What cuptitrace's start-up hook does in a PyTorch program (docs/pytorch.md).

``install(environ)`` reads the settings and puts a finder first on
``sys.meta_path`` whose loader for ``torch`` runs ``_torch_loaded`` right after
torch's own ``__init__`` has run. Then, on the importing thread:

- ``CUPTITRACE_PYTORCH=ops|shapes``: PyTorch's NVTX-mode profiler, what
  ``torch.autograd.profiler.emit_nvtx(record_shapes=...)`` turns on, without its
  ``torch.cuda.synchronize()``: nothing here initializes CUDA. The program's own
  profilers suspend it on their thread while they run (``ProfilerSession``).
- ``CUPTITRACE_PYTHON_BACKTRACE=on``: a ``TorchFunctionMode`` that tells the
  tracer, around each torch call made from Python, which lines of user code
  made it (``PythonLines``).

Threads started later (``threading.Thread``) get both when they start. Every
failure is one ``cuptitrace:`` line on stderr; the program goes on.
"""

import os
import sys

PREFIX = "cuptitrace: "
DEFAULT_DEPTH = 3
MAX_DEPTH = 64


def say(message):
    try:
        sys.stderr.write(PREFIX + message + "\n")
        sys.stderr.flush()
    except Exception:
        pass


from _cuptitrace_lines import FrameFilter, FrameText, PythonLines, default_skip_dirs  # noqa: E402,F401


# ---------------------------------------------------------------------------
# Settings


class Settings:
    def __init__(self, operators=None, backtrace=False, depth=DEFAULT_DEPTH, library=None):
        self.operators = operators  # None, "ops" or "shapes"
        self.backtrace = backtrace
        self.depth = depth
        self.library = library      # CUDA_INJECTION64_PATH


_TRUE = ("on", "1", "true", "yes")
_FALSE = ("off", "0", "false", "no", "")


def parse_settings(environ):
    """(Settings, [messages]) from the environment; a bad value keeps the
    default and gives one message naming the variable and what is accepted."""
    messages = []
    settings = Settings(library=environ.get("CUDA_INJECTION64_PATH") or None)

    raw = environ.get("CUPTITRACE_PYTORCH", "")
    value = raw.strip().lower()
    if value in ("ops", "shapes"):
        settings.operators = value
    elif value not in _FALSE:
        messages.append("CUPTITRACE_PYTORCH=%r is not one of off, ops, shapes: "
                        "PyTorch operators are not recorded" % raw)

    raw = environ.get("CUPTITRACE_PYTHON_BACKTRACE", "")
    value = raw.strip().lower()
    if value in _TRUE:
        settings.backtrace = True
    elif value not in _FALSE:
        messages.append("CUPTITRACE_PYTHON_BACKTRACE=%r is not one of on, off: "
                        "Python lines are not recorded" % raw)

    raw = environ.get("CUPTITRACE_PYTHON_BACKTRACE_DEPTH", "")
    if raw.strip():
        text = raw.strip()
        if text.isdigit() and 1 <= int(text) <= MAX_DEPTH:
            settings.depth = int(text)
        else:
            messages.append("CUPTITRACE_PYTHON_BACKTRACE_DEPTH=%r is not a whole number from 1 to %d: "
                            "using %d" % (raw, MAX_DEPTH, DEFAULT_DEPTH))
    return settings, messages


# ---------------------------------------------------------------------------
# The import hook


class TorchFinder:
    """First on sys.meta_path: finds ``torch`` through the finders after it and
    hands back its spec with a loader that runs ``on_loaded(module)`` once the
    real loader has executed torch's ``__init__``. Any other name: None, at once."""

    def __init__(self, on_loaded):
        self.on_loaded = on_loaded

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "torch":
            return None
        try:
            for finder in list(sys.meta_path):
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(fullname, path, target)
                if spec is not None:
                    if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                        spec.loader = TorchLoader(spec.loader, self)
                    return spec
        except Exception as error:
            say("PyTorch operators and Python lines are not recorded: finding torch failed (%s)" % error)
            self.remove()
        return None

    def remove(self):
        try:
            sys.meta_path.remove(self)
        except ValueError:
            pass


class TorchLoader:
    """torch's own loader, and after it has run, the hook."""

    def __init__(self, loader, finder):
        self.loader = loader
        self.finder = finder

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.finder.remove()
        try:  # torch sees its own loader, as without the hook
            module.__spec__.loader = self.loader
            module.__loader__ = self.loader
        except Exception:
            pass
        self.loader.exec_module(module)
        self.finder.on_loaded(module)

    def __getattr__(self, name):
        return getattr(self.loader, name)


_settings = None
_operators = None   # ProfilerSession once enabled
_lines = None       # PythonLines once installed


def install(environ=os.environ):
    """Reads the settings; if anything is on, arranges for ``_torch_loaded``
    to run after ``import torch``. Never raises."""
    global _settings
    try:
        settings, messages = parse_settings(environ)
        for message in messages:
            say(message)
        if settings.operators is None and not settings.backtrace:
            return
        _settings = settings
        torch = sys.modules.get("torch")
        if torch is not None and hasattr(torch, "autograd"):
            _torch_loaded(torch)
        else:
            sys.meta_path.insert(0, TorchFinder(_torch_loaded))
    except Exception as error:
        say("PyTorch operators and Python lines are not recorded: %s: %s" % (type(error).__name__, error))


def _torch_loaded(torch):
    """Runs once, on the thread that imported torch, right after it did."""
    global _operators, _lines
    settings = _settings
    if settings is None:
        return
    if settings.operators is not None:
        try:
            _operators = ProfilerSession(torch, settings.operators == "shapes")
            _operators.wrap_program_profilers()
            _operators.enable_here()
        except Exception as error:
            _operators = None
            say("PyTorch operators are not recorded: %s: %s" % (type(error).__name__, error))
    if settings.backtrace:
        try:
            if not settings.library:
                raise RuntimeError("CUDA_INJECTION64_PATH is not set, so there is no tracer to tell")
            if not os.path.exists(settings.library):
                raise RuntimeError("CUDA_INJECTION64_PATH=%s does not exist" % settings.library)
            _lines = PythonLines(torch, settings.depth, settings.library)
            _lines.enter_here()
        except Exception as error:
            _lines = None
            say("Python lines are not recorded: %s" % (error,))
    if _operators is not None or _lines is not None:
        try:
            _watch_threads()
        except Exception as error:
            say("threads started from now on record no PyTorch operators or Python lines: %s" % (error,))
        try:
            os.register_at_fork(after_in_child=_after_fork_in_child)
        except Exception:
            pass


def _on_thread_start():
    if _operators is not None:
        try:
            _operators.enable_here()
        except Exception:
            pass
    if _lines is not None:
        try:
            _lines.enter_here()
        except Exception:
            pass


def _on_thread_end():
    # PyTorch warns ("Leaked callback handle") when a thread ends with a
    # profiler on: turn ours off first.
    if _operators is not None:
        try:
            _operators.disable_here()
        except Exception:
            pass


_thread_hook_failed = False


def _watch_threads():
    """Every threading.Thread started from now on runs _on_thread_start first,
    in the new thread, and _on_thread_end last (Thread._bootstrap_inner runs
    every Thread's run); the importing thread's operators end at exit."""
    import atexit
    import threading

    original = threading.Thread._bootstrap_inner
    if getattr(original, "_cuptitrace", False):
        return

    def _bootstrap_inner(self):
        global _thread_hook_failed
        if _thread_hook_failed:
            return original(self)
        try:
            _on_thread_start()
        except Exception:
            _thread_hook_failed = True
        try:
            return original(self)
        finally:
            _on_thread_end()

    _bootstrap_inner._cuptitrace = True
    threading.Thread._bootstrap_inner = _bootstrap_inner
    atexit.register(_on_thread_end)


def _after_fork_in_child():
    # A forked child (a DataLoader worker) is not traced: stop telling the
    # tracer Python lines (one flag, no call into torch or the tracer here).
    # The operators' ranges stay on: turning them off would call into torch's
    # C++ right after fork, and a worker runs few operators.
    if _lines is not None:
        _lines.off = True
    if _operators is not None:
        _operators.forked = True


# ---------------------------------------------------------------------------
# Operators: PyTorch's NVTX-mode profiler


class ProfilerSession:
    """PyTorch's profiler in NVTX mode on the threads that call enable_here();
    the program's own profiler (torch.profiler.profile,
    torch.autograd.profiler.profile, emit_nvtx, emit_itt, the legacy profiler)
    suspends it on its thread from its enable to its disable: PyTorch allows
    one profiler per thread."""

    ENABLE_NAMES = ("_enable_profiler", "_enable_profiler_legacy")
    DISABLE_NAMES = ("_disable_profiler", "_disable_profiler_legacy")

    def __init__(self, torch, record_shapes):
        import threading

        self.torch = torch
        profiler = torch.autograd.profiler
        self.profiler = profiler
        self.record_shapes = bool(record_shapes)
        self.enable = profiler._enable_profiler     # torch._C._autograd's, unwrapped
        self.disable = profiler._disable_profiler
        self.config = profiler.ProfilerConfig(
            profiler.ProfilerState.NVTX, self.record_shapes, False, False, False, False,
            profiler._ExperimentalConfig())
        self.set_flag = getattr(profiler, "_set_is_profiler_enabled", None)
        self.local = threading.local()
        self.active = False
        self.forked = False

    # Ours, on the calling thread.
    def enable_here(self):
        if self.forked or getattr(self.local, "on", False):
            return
        self.enable(self.config, set())
        self.local.on = True
        self.active = True
        self.raise_flag()

    def disable_here(self):
        if getattr(self.local, "on", False):
            self.local.on = False
            self.disable()

    def raise_flag(self):
        # torch.autograd.profiler._is_profiler_enabled, as emit_nvtx sets it:
        # torch.compile's generated code then names its Triton kernels in ranges.
        if self.set_flag is not None:
            self.set_flag(True)

    def suspend_here(self):
        """True when ours was on here and is now off, for the program's."""
        if not getattr(self.local, "on", False):
            return False
        self.local.on = False
        self.local.suspended = True
        self.disable()
        return True

    def resume_here(self):
        if getattr(self.local, "suspended", False):
            self.enable_here()
            self.local.suspended = False

    # The program's profilers.
    def wrap_program_profilers(self):
        modules = [self.torch.autograd, self.profiler]
        legacy = sys.modules.get("torch.autograd.profiler_legacy")
        if legacy is not None:
            modules.append(legacy)
        wrapped = {}
        for module in modules:
            for name in self.ENABLE_NAMES + self.DISABLE_NAMES:
                original = getattr(module, name, None)
                if original is None or getattr(original, "_cuptitrace", False):
                    continue
                wrapper = wrapped.get(id(original))
                if wrapper is None:
                    if name in self.ENABLE_NAMES:
                        wrapper = self._wrap_enable(original)
                    else:
                        wrapper = self._wrap_disable(original)
                    wrapped[id(original)] = wrapper
                setattr(module, name, wrapper)
            stop = getattr(module, "_run_on_profiler_stop", None)
            if stop is not None and not getattr(stop, "_cuptitrace", False):
                setattr(module, "_run_on_profiler_stop", self._wrap_stop(stop))

    def _wrap_enable(self, original):
        session = self

        def enable(*args, **kwargs):
            suspended = False
            try:
                suspended = session.suspend_here()
            except Exception:
                pass
            try:
                return original(*args, **kwargs)
            except BaseException:
                if suspended:  # theirs did not start: ours again
                    try:
                        session.resume_here()
                    except Exception:
                        pass
                raise

        enable._cuptitrace = True
        enable.__name__ = getattr(original, "__name__", "enable")
        enable.__doc__ = getattr(original, "__doc__", None)
        return enable

    def _wrap_disable(self, original):
        session = self

        def disable(*args, **kwargs):
            try:
                return original(*args, **kwargs)
            finally:
                try:
                    session.resume_here()
                except Exception as error:
                    say("PyTorch operators are no longer recorded on this thread: "
                        "resuming after the program's profiler failed (%s)" % (error,))

        disable._cuptitrace = True
        disable.__name__ = getattr(original, "__name__", "disable")
        disable.__doc__ = getattr(original, "__doc__", None)
        return disable

    def _wrap_stop(self, original):
        session = self

        def _run_on_profiler_stop(*args, **kwargs):
            result = original(*args, **kwargs)
            if session.active:
                try:
                    session.raise_flag()
                except Exception:
                    pass
            return result

        _run_on_profiler_stop._cuptitrace = True
        return _run_on_profiler_stop
