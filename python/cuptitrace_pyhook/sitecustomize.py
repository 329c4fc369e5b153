"""cuptitrace's Python start-up hook (``cuptitrace --pytorch`` and ``--python-backtrace``).

Python imports ``sitecustomize`` at start-up from the first directory of
``sys.path`` that has one; the ``cuptitrace`` command puts this directory first
on ``PYTHONPATH``. Unless ``CUPTITRACE_PYTORCH`` or ``CUPTITRACE_PYTHON_BACKTRACE``
is on, this file only runs the ``sitecustomize`` it shadows. When one is on, it
installs an import hook that runs ``_cuptitrace_torch`` right after ``import
torch`` finishes: torch itself is never imported here. Nothing here raises: a
failure is one line on stderr starting ``cuptitrace:``, and the program goes on.
See docs/pytorch.md.
"""


def _cuptitrace_wanted(environ):
    for name in ("CUPTITRACE_PYTORCH", "CUPTITRACE_PYTHON_BACKTRACE"):
        value = environ.get(name, "").strip().lower()
        if value and value not in ("off", "0", "false", "no"):
            return True
    return False


def _cuptitrace_start():
    import os
    import sys

    try:
        if sys.version_info < (3, 8) or not _cuptitrace_wanted(os.environ):
            return
        import _cuptitrace_torch

        _cuptitrace_torch.install(os.environ)
    except Exception as error:  # never harm the program
        try:
            sys.stderr.write(
                "cuptitrace: PyTorch operators and Python lines are not recorded: "
                "the start-up hook failed (%s: %s)\n" % (type(error).__name__, error))
        except Exception:
            pass


def _cuptitrace_chain():
    """Runs the next ``sitecustomize`` on ``sys.path`` after this directory, as
    Python's ``site`` would have run it had this one not shadowed it."""
    import os
    import sys

    if sys.version_info < (3, 4):
        return
    try:
        here = os.path.dirname(os.path.abspath(__file__))

        def is_here(entry):
            try:
                return os.path.samefile(entry or os.curdir, here)
            except (OSError, TypeError, ValueError):
                return False

        after = None
        for index, entry in enumerate(sys.path):
            if is_here(entry):
                after = [p for p in sys.path[index + 1:] if not is_here(p)]
                break
        if after is None:  # imported from elsewhere than sys.path: nothing shadowed
            return
        from importlib.machinery import PathFinder

        spec = PathFinder.find_spec("sitecustomize", after)
        if spec is None or spec.loader is None:
            return
        if spec.origin and os.path.exists(spec.origin) and os.path.samefile(spec.origin, __file__):
            return
        import importlib.util

        module = importlib.util.module_from_spec(spec)
    except Exception as error:
        try:
            sys.stderr.write("cuptitrace: the sitecustomize after %s was not run: %s: %s\n"
                             % (os.path.dirname(os.path.abspath(__file__)), type(error).__name__, error))
        except Exception:
            pass
        return
    ours = sys.modules.get("sitecustomize")
    sys.modules["sitecustomize"] = module  # as `import sitecustomize` would leave it
    try:
        spec.loader.exec_module(module)
    except ImportError as error:
        sys.modules["sitecustomize"] = ours
        if error.name != "sitecustomize":
            _cuptitrace_site_error(error)
    except Exception as error:
        sys.modules["sitecustomize"] = ours
        _cuptitrace_site_error(error)


def _cuptitrace_site_error(error):
    # What site.execsitecustomize() says of a sitecustomize that raises.
    import sys

    try:
        if sys.flags.verbose:
            sys.excepthook(type(error), error, error.__traceback__)
        else:
            sys.stderr.write("Error in sitecustomize; set PYTHONVERBOSE for traceback:\n"
                             "%s: %s\n" % (type(error).__name__, error))
    except Exception:
        pass


_cuptitrace_start()
_cuptitrace_chain()
