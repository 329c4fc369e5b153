_initialized = False


def is_initialized():
    return _initialized


def synchronize():
    global _initialized
    _initialized = True  # as torch.cuda.synchronize() initializes CUDA


def init():
    global _initialized
    _initialized = True
