"""TorchFunctionMode as PyTorch has it: a per-thread stack of modes; a call of a
torch function goes to the innermost mode's __torch_function__, with that mode
taken off the stack while it runs."""
import threading

_stack = threading.local()


def _modes():
    if not hasattr(_stack, "modes"):
        _stack.modes = []
    return _stack.modes


class TorchFunctionMode:
    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        _modes().append(self)
        return self

    def __exit__(self, *exc):
        _modes().remove(self)


def dispatch(func, *args, **kwargs):
    """What a torch function does when called from Python."""
    modes = _modes()
    if not modes:
        return func(*args, **kwargs)
    mode = modes.pop()
    try:
        return mode.__torch_function__(func, (), args, kwargs)
    finally:
        modes.append(mode)


def torch_function(func):
    """Makes func a 'torch function' that goes through the mode stack."""
    def wrapper(*args, **kwargs):
        return dispatch(func, *args, **kwargs)
    wrapper.__name__ = func.__name__
    wrapper.__wrapped__ = func
    return wrapper


@torch_function
def add(a, b):
    return a + b


@torch_function
def size(a):
    return 1


@torch_function
def fails(a):
    raise ValueError("fails %r" % (a,))
