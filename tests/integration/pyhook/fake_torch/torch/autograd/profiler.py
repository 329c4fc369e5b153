"""Like torch/autograd/profiler.py: one profiler per thread, as PyTorch's C++ enforces."""
import threading

_state = threading.local()
_is_profiler_enabled = False


def _events():
    import torch
    return torch.events


def _set_is_profiler_enabled(enable):
    global _is_profiler_enabled
    _is_profiler_enabled = enable


def _run_on_profiler_start():
    _set_is_profiler_enabled(True)


def _run_on_profiler_stop():
    _set_is_profiler_enabled(False)


class ProfilerState:
    Disabled = "Disabled"
    NVTX = "NVTX"
    KINETO = "KINETO"


class _ExperimentalConfig:
    pass


class ProfilerConfig:
    def __init__(self, state, report_input_shapes, profile_memory, with_stack, with_flops,
                 with_modules, experimental_config):
        assert isinstance(experimental_config, _ExperimentalConfig)
        self.state = state
        self.report_input_shapes = report_input_shapes

    def __repr__(self):
        return "%s/%s" % (self.state, "shapes" if self.report_input_shapes else "ops")


def _enable_profiler(config, activities, scopes=None):
    import torch
    if not torch._import_finished:
        _events().append(("enable during import",))
    if getattr(_state, "config", None) is not None:
        raise RuntimeError("Profiler is already enabled on this thread.")
    _state.config = config
    _events().append(("enable", repr(config), threading.get_ident()))


def _disable_profiler():
    config = getattr(_state, "config", None)
    if config is None:
        raise RuntimeError("Can't disable Kineto profiler when it's not running")
    _state.config = None
    _events().append(("disable", repr(config), threading.get_ident()))
    return "result of %r" % config


def _enable_profiler_legacy(config):
    return _enable_profiler(config, set())


def _disable_profiler_legacy(*args):
    return _disable_profiler()


def _profiler_enabled():
    return getattr(_state, "config", None) is not None


def _prepare_profiler(config, activities):
    pass


class profile:
    """The program's own profiler, the way torch.autograd.profiler.profile
    calls the module's functions (looked up at call time)."""

    def __init__(self, record_shapes=False):
        self.config = ProfilerConfig(ProfilerState.KINETO, record_shapes, False, False, False, False,
                                     _ExperimentalConfig())

    def __enter__(self):
        _prepare_profiler(self.config, set())
        _run_on_profiler_start()
        _enable_profiler(self.config, {"CPU"})
        return self

    def __exit__(self, *exc):
        self.result = _disable_profiler()
        _run_on_profiler_stop()
        return False


class emit_nvtx:
    def __init__(self, enabled=True, record_shapes=False):
        self.record_shapes = record_shapes

    def __enter__(self):
        import torch
        torch.cuda.synchronize()
        _run_on_profiler_start()
        _enable_profiler(ProfilerConfig(ProfilerState.NVTX, self.record_shapes, False, False, False, False,
                                        _ExperimentalConfig()), set())
        return self

    def __exit__(self, *exc):
        import torch
        torch.cuda.synchronize()
        _disable_profiler()
        _run_on_profiler_stop()
        return False
