"""The Python line behind each launch (--python-backtrace; docs/pytorch.md):
a ``TorchFunctionMode`` that tells the tracer, around each torch call made
from Python, which lines of user code made it. Used by _cuptitrace_torch.
"""

import os
import sys

CACHE_LIMIT = 1 << 16  # texts kept per process before the cache starts over
RETRY_EVERY = 256      # torch calls between two looks for the tracer's library


def say(message):
    # Through the hook's own, so that one place writes (and tests catch) the lines.
    import _cuptitrace_torch
    _cuptitrace_torch.say(message)



def _real(path):
    try:
        return os.path.realpath(path)
    except Exception:
        return path


class FrameFilter:
    """Which code is not the user's: PyTorch's, Triton's, Python's standard
    library (not its site-packages), this hook's, and code PyTorch generates
    (torch.fx's ``<eval_with_key>``, Inductor's cache). Decided once per code
    object."""

    def __init__(self, dirs, cwd):
        sep = os.sep
        self.dirs = tuple(sorted({_real(d).rstrip(sep) + sep for d in dirs if d}))
        self.cwd = _real(cwd).rstrip(sep) + sep if cwd else None
        self.verdict = {}

    def is_skipped_file(self, filename):
        if not filename:
            return True
        if filename.startswith("<"):
            return filename.startswith(("<frozen ", "<eval_with_key"))
        path = filename if os.path.isabs(filename) else os.path.join(self.cwd or os.curdir, filename)
        path = _real(path)
        if "torchinductor_" in path:  # Inductor's generated code
            return True
        for d in self.dirs:
            if path.startswith(d):
                rest = path[len(d):]
                return not (rest.startswith("site-packages" + os.sep)
                            or rest.startswith("dist-packages" + os.sep))
        return False

    def display(self, filename):
        """The path relative to the current directory when under it, else as
        the code object has it."""
        if self.cwd and os.path.isabs(filename):
            real = _real(filename)
            if real.startswith(self.cwd):
                return real[len(self.cwd):]
            if filename.startswith(self.cwd):
                return filename[len(self.cwd):]
        return filename


def default_skip_dirs(torch):
    dirs = [os.path.dirname(os.path.abspath(__file__))]
    dirs.append(os.path.dirname(os.path.abspath(os.__file__)))  # the standard library
    torch_file = getattr(torch, "__file__", None)
    if torch_file:
        dirs.append(os.path.dirname(os.path.abspath(torch_file)))
    try:
        triton = sys.modules.get("triton")
        origin = getattr(triton, "__file__", None)
        if origin is None:
            import importlib.util

            spec = importlib.util.find_spec("triton")
            origin = spec.origin if spec is not None else None
        if origin:
            dirs.append(os.path.dirname(os.path.abspath(origin)))
    except Exception:
        pass
    return dirs


def _line_of(code, lasti):
    """The line of the instruction at offset lasti, as frame.f_lineno gives it."""
    try:
        for start, end, line in code.co_lines():
            if start <= lasti < end:
                return line if line is not None else code.co_firstlineno
    except Exception:
        pass
    return code.co_firstlineno


class FrameText:
    """The innermost ``depth`` frames of user code above a frame, as
    ``path:line function <- path:line function ...``, innermost first, cached per
    (code object, instruction) of each frame: the common case is a dict lookup."""

    def __init__(self, frame_filter, depth):
        self.filter = frame_filter
        self.depth = depth
        self.texts = {}

    def key(self, frame):
        verdict = self.filter.verdict
        get = verdict.get
        key = []
        left = self.depth
        while frame is not None:
            code = frame.f_code
            skipped = get(code)
            if skipped is None:
                skipped = verdict[code] = self.filter.is_skipped_file(code.co_filename)
            if not skipped:
                key.append(code)
                key.append(frame.f_lasti)
                left -= 1
                if not left:
                    break
            frame = frame.f_back
        return tuple(key)

    def text(self, frame):
        """bytes, or None where no frame is the user's."""
        key = self.key(frame)
        text = self.texts.get(key)
        if text is None:
            if not key:
                return None
            text = self.format(key).encode("utf-8", "replace")
            if len(self.texts) >= CACHE_LIMIT:
                self.texts.clear()
                if len(self.filter.verdict) >= CACHE_LIMIT:
                    self.filter.verdict.clear()
            self.texts[key] = text
        return text

    def format(self, key):
        parts = []
        for i in range(0, len(key), 2):
            code, lasti = key[i], key[i + 1]
            name = getattr(code, "co_qualname", None) or code.co_name
            parts.append("%s:%d %s" % (self.filter.display(code.co_filename), _line_of(code, lasti), name))
        return " <- ".join(parts)


# Torch functions that never launch GPU work: no range around them.
_NO_LAUNCH_NAMES = frozenset((
    "__get__", "__set__", "size", "dim", "ndimension", "numel", "nelement", "stride",
    "storage_offset", "is_contiguous", "data_ptr", "get_device", "is_floating_point",
    "is_complex", "__len__", "__hash__", "element_size", "requires_grad_",
    "is_pinned", "is_shared", "untyped_storage",
))


class PythonLines:
    """Tells the tracer, around each torch call from Python, the lines of user
    code that made it: ``cuptitrace_v1_push_python(text)`` before,
    ``cuptitrace_v1_pop_python()`` after (only when the push returned 0).
    The tracer's library is loaded by the CUDA driver at CUDA's first call; until
    then it is looked for every RETRY_EVERY calls, and once right after torch
    has initialized CUDA."""

    def __init__(self, torch, depth, library, load=None, frame_filter=None):
        self.torch = torch
        self.library = library
        self.frames = FrameText(frame_filter or FrameFilter(default_skip_dirs(torch), os.getcwd()), depth)
        self.push = None
        self.pop = None
        self.off = False        # for good: the library has no such functions, or a forked child
        self.countdown = 0
        self.cuda = getattr(torch, "cuda", None)
        self.cuda_seen = False  # looked once since torch initialized CUDA
        self.load = load or self.load_library
        self.launching = {}
        self.mode_class = self.make_mode_class(torch)

    def load_library(self):
        """(push, pop) from the tracer's library if the process has it loaded,
        None if not yet; raises LookupError if it lacks the functions."""
        import ctypes

        try:
            library = ctypes.CDLL(self.library, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
        except OSError:
            return None
        try:
            push = library.cuptitrace_v1_push_python
            pop = library.cuptitrace_v1_pop_python
        except AttributeError:
            raise LookupError("%s has no cuptitrace_v1_push_python (a build from before it)" % self.library)
        push.argtypes = (ctypes.c_char_p,)
        push.restype = ctypes.c_int
        pop.argtypes = ()
        pop.restype = ctypes.c_int
        return push, pop

    def find_library(self):
        self.countdown = RETRY_EVERY
        try:
            found = self.load()
        except Exception as error:
            self.off = True
            say("Python lines are not recorded: %s" % (error,))
            return False
        if found is None:
            return False
        self.push, self.pop = found
        return True

    def may_launch(self, func):
        answer = self.launching.get(func)
        if answer is None:
            answer = getattr(func, "__name__", None) not in _NO_LAUNCH_NAMES
            if len(self.launching) < CACHE_LIMIT:
                try:
                    self.launching[func] = answer
                except TypeError:  # unhashable
                    pass
        return answer

    def enter(self, func, frame):
        """True when a range was pushed (pop it after the call)."""
        if self.off:
            return False
        push = self.push
        if push is None:
            self.countdown -= 1
            if self.countdown > 0:
                # The driver loads the library as torch initializes CUDA: look then.
                if self.cuda_seen or not getattr(self.cuda, "_initialized", False):
                    return False
                self.cuda_seen = True
            if not self.find_library():
                return False
            push = self.push
        if not self.may_launch(func):
            return False
        text = self.frames.text(frame)
        if text is None:
            return False
        return push(text) == 0

    def make_mode_class(self, torch):
        import importlib

        lines = self
        is_compiling = importlib.import_module("torch.compiler").is_compiling
        TorchFunctionMode = importlib.import_module("torch.overrides").TorchFunctionMode
        getframe = sys._getframe

        class CuptitracePythonLine(TorchFunctionMode):
            """Around each torch call from Python: the tracer is told the user
            lines behind it. Inside torch.compile's tracing: the call alone."""

            def __torch_function__(self, func, types, args=(), kwargs=None):
                if kwargs is None:
                    kwargs = {}
                if is_compiling():
                    return func(*args, **kwargs)
                try:
                    pushed = lines.enter(func, getframe(1))
                except Exception:
                    pushed = False
                if not pushed:
                    return func(*args, **kwargs)
                try:
                    return func(*args, **kwargs)
                finally:
                    try:
                        lines.pop()
                    except Exception:
                        pass

        return CuptitracePythonLine

    def enter_here(self):
        """Enters the mode on the calling thread, for good."""
        self.mode_class().__enter__()
