from . import profiler  # noqa: F401
from .profiler import (_disable_profiler, _disable_profiler_legacy, _enable_profiler,  # noqa: F401
                       _enable_profiler_legacy, _profiler_enabled)
