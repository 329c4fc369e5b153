"""The Python start-up hook of `cuptitrace --pytorch` and `--python-backtrace`
(python/cuptitrace_pyhook), with a stand-in `torch` package (fake_torch/): no
PyTorch, no GPU. Programs run in child processes the way the command runs
them: the hook's directory first on PYTHONPATH, the variables set.

  python3 tests/integration/pyhook/test_pyhook.py [-v]"""
import ast
import os
import subprocess
import sys
import tempfile
import textwrap
import threading
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
HOOK = os.path.join(ROOT, "python", "cuptitrace_pyhook")
FAKE = os.path.join(HERE, "fake_torch")
HOOK_VARIABLES = ("CUPTITRACE_PYTORCH", "CUPTITRACE_PYTHON_BACKTRACE", "CUPTITRACE_PYTHON_BACKTRACE_DEPTH",
                  "CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH", "FAKE_TORCH_BROKEN",
                  "FAKE_TORCH_IMPORT_FAILS", "PYTHONVERBOSE")

sys.path.insert(0, HOOK)
import _cuptitrace_torch as hook  # noqa: E402


def run(program, extra_path=(), cwd=None, **variables):
    """Runs `program` in a child Python under the hook; (returncode, stdout, stderr)."""
    env = {k: v for k, v in os.environ.items() if k not in HOOK_VARIABLES and k != "PYTHONPATH"}
    env["PYTHONPATH"] = os.pathsep.join([HOOK, *extra_path, FAKE])
    env.update(variables)
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "program.py")
        with open(script, "w") as f:
            f.write(textwrap.dedent(program))
        done = subprocess.run([sys.executable, script], env=env, cwd=cwd or tmp, capture_output=True,
                              text=True, timeout=60)
    return done.returncode, done.stdout, done.stderr


def last_line(stdout):
    """The program's report: its last line of stdout, a Python literal."""
    return ast.literal_eval(stdout.strip().splitlines()[-1])


REPORT = """
import sys, threading
import torch
main = threading.get_ident()
def who(tid):
    return "main" if tid == main else "other"
events = [(e[0], e[1], who(e[2])) if len(e) == 3 else e for e in torch.events]
print(repr((events, torch.autograd.profiler._is_profiler_enabled, torch.cuda.is_initialized())))
"""


class Inert(unittest.TestCase):
    def test_without_the_variables_nothing_happens(self):
        rc, out, err = run(REPORT)
        self.assertEqual((rc, err), (0, ""))
        self.assertEqual(last_line(out), ([("import done",)], False, False))

    def test_off_is_off(self):
        rc, out, err = run(REPORT, CUPTITRACE_PYTORCH="off", CUPTITRACE_PYTHON_BACKTRACE="off")
        self.assertEqual((rc, err), (0, ""))
        self.assertEqual(last_line(out), ([("import done",)], False, False))

    def test_a_program_that_never_imports_torch(self):
        program = """
        import json, sys
        finders = [type(f).__name__ for f in sys.meta_path]
        print(repr(("torch" in sys.modules, "_cuptitrace_torch" in sys.modules, finders[0])))
        """
        rc, out, err = run(program, CUPTITRACE_PYTORCH="ops", CUPTITRACE_PYTHON_BACKTRACE="on",
                           CUDA_INJECTION64_PATH=__file__)
        self.assertEqual((rc, err), (0, ""))
        self.assertEqual(last_line(out), (False, True, "TorchFinder"))

    def test_no_variable_no_hook_module(self):
        rc, out, err = run("import sys\nprint(repr('_cuptitrace_torch' in sys.modules))")
        self.assertEqual((rc, err, last_line(out)), (0, "", False))


class Operators(unittest.TestCase):
    def test_ops_after_import_in_nvtx_mode(self):
        rc, out, err = run(REPORT, CUPTITRACE_PYTORCH="ops")
        self.assertEqual((rc, err), (0, ""))
        # After torch's import finished (the fake says "enable during import"
        # otherwise), on the importing thread, without initializing CUDA.
        self.assertEqual(last_line(out), ([("import done",), ("enable", "NVTX/ops", "main")], True, False))

    def test_shapes(self):
        rc, out, err = run(REPORT, CUPTITRACE_PYTORCH="shapes")
        self.assertEqual((rc, err), (0, ""))
        self.assertEqual(last_line(out), ([("import done",), ("enable", "NVTX/shapes", "main")], True, False))

    def test_finder_leaves_after_import_and_torch_keeps_its_loader(self):
        program = """
        import sys
        import torch
        print(repr((any(type(f).__name__ == "TorchFinder" for f in sys.meta_path),
                    type(torch.__loader__).__name__, type(torch.__spec__.loader).__name__)))
        """
        rc, out, err = run(program, CUPTITRACE_PYTORCH="ops")
        self.assertEqual((rc, err), (0, ""))
        self.assertEqual(last_line(out), (False, "SourceFileLoader", "SourceFileLoader"))

    def test_find_spec_without_import_does_not_use_up_the_hook(self):
        program = textwrap.dedent("""
        import importlib.util
        assert importlib.util.find_spec("torch") is not None
        """) + REPORT
        rc, out, err = run(program, CUPTITRACE_PYTORCH="ops")
        self.assertEqual((rc, err), (0, ""))
        self.assertEqual(last_line(out)[0], [("import done",), ("enable", "NVTX/ops", "main")])

    def test_bad_value_one_line(self):
        rc, out, err = run(REPORT, CUPTITRACE_PYTORCH="opps")
        self.assertEqual(rc, 0)
        self.assertEqual(err, "cuptitrace: CUPTITRACE_PYTORCH='opps' is not one of off, ops, shapes: "
                              "PyTorch operators are not recorded\n")
        self.assertEqual(last_line(out)[0], [("import done",)])

    def test_failure_inside_the_hook_is_one_line_and_keeps_the_exit_code(self):
        program = REPORT + "\nsys.exit(3)\n"
        rc, out, err = run(program, CUPTITRACE_PYTORCH="ops", FAKE_TORCH_BROKEN="1")
        self.assertEqual(rc, 3)
        lines = err.splitlines()
        self.assertEqual(len(lines), 1, err)
        self.assertTrue(lines[0].startswith("cuptitrace: PyTorch operators are not recorded: "), err)
        self.assertEqual(last_line(out), ([("import done",)], False, False))

    def test_torch_that_fails_to_import_fails_as_without_the_hook(self):
        program = "try:\n    import torch\nexcept ImportError as e:\n    print(repr(str(e)))\n"
        rc, out, err = run(program, CUPTITRACE_PYTORCH="ops", FAKE_TORCH_IMPORT_FAILS="1")
        self.assertEqual((rc, err, last_line(out)), (0, "", "fake torch refuses to import"))

    def test_the_programs_profiler_suspends_and_resumes_ours(self):
        program = textwrap.dedent("""
        import torch
        with torch.autograd.profiler.profile():
            inside = torch.autograd.profiler._is_profiler_enabled
        """) + REPORT
        rc, out, err = run(program, CUPTITRACE_PYTORCH="ops")
        self.assertEqual((rc, err), (0, ""))
        events, flag, cuda = last_line(out)
        self.assertEqual(events, [("import done",), ("enable", "NVTX/ops", "main"),
                                  ("disable", "NVTX/ops", "main"), ("enable", "KINETO/ops", "main"),
                                  ("disable", "KINETO/ops", "main"), ("enable", "NVTX/ops", "main")])
        self.assertEqual((flag, cuda), (True, False))  # the flag stays up: ours runs again

    def test_the_programs_emit_nvtx_and_legacy_calls(self):
        program = textwrap.dedent("""
        import torch
        with torch.autograd.profiler.emit_nvtx(record_shapes=True):
            pass
        from torch.autograd import _enable_profiler_legacy, _disable_profiler_legacy
        _enable_profiler_legacy(torch.autograd.profiler.ProfilerConfig(
            "KINETO", False, False, False, False, False, torch.autograd.profiler._ExperimentalConfig()))
        _disable_profiler_legacy()
        """) + REPORT
        rc, out, err = run(program, CUPTITRACE_PYTORCH="ops")
        self.assertEqual((rc, err), (0, ""))
        events = last_line(out)[0]
        self.assertEqual(events[2:], [("disable", "NVTX/ops", "main"), ("enable", "NVTX/shapes", "main"),
                                      ("disable", "NVTX/shapes", "main"), ("enable", "NVTX/ops", "main"),
                                      ("disable", "NVTX/ops", "main"), ("enable", "KINETO/ops", "main"),
                                      ("disable", "KINETO/ops", "main"), ("enable", "NVTX/ops", "main")])

    def test_a_program_profiler_that_fails_to_start_leaves_ours_on(self):
        program = textwrap.dedent("""
        import torch
        p = torch.autograd.profiler
        p._enable_profiler(p.ProfilerConfig("KINETO", False, False, False, False, False, p._ExperimentalConfig()), set())
        try:
            p._enable_profiler(p.ProfilerConfig("KINETO", True, False, False, False, False, p._ExperimentalConfig()), set())
        except RuntimeError as e:
            print(repr(str(e)))
        p._disable_profiler()
        """) + REPORT
        rc, out, err = run(program, CUPTITRACE_PYTORCH="ops")
        self.assertEqual((rc, err), (0, ""))
        self.assertIn("'Profiler is already enabled on this thread.'", out)
        self.assertEqual(last_line(out)[0][-3:], [("enable", "KINETO/ops", "main"),
                                                   ("disable", "KINETO/ops", "main"), ("enable", "NVTX/ops", "main")])

    def test_threads_started_later_get_it(self):
        program = textwrap.dedent("""
        import threading
        import torch
        class Sub(threading.Thread):
            def run(self):
                pass
        t = threading.Thread(target=lambda: None); t.start(); t.join()
        s = Sub(); s.start(); s.join()
        """) + REPORT
        rc, out, err = run(program, CUPTITRACE_PYTORCH="shapes")
        self.assertEqual((rc, err), (0, ""))
        # Each thread turns it on as it starts, off as it ends (PyTorch warns
        # of a leaked callback otherwise).
        self.assertEqual(last_line(out)[0], [("import done",), ("enable", "NVTX/shapes", "main"),
                                             ("enable", "NVTX/shapes", "other"),
                                             ("disable", "NVTX/shapes", "other"),
                                             ("enable", "NVTX/shapes", "other"),
                                             ("disable", "NVTX/shapes", "other")])

    def test_off_at_exit(self):
        program = textwrap.dedent("""
        import atexit
        atexit.register(lambda: print(repr([e[:2] for e in torch.events])))  # runs after the hook's
        import torch
        """)
        rc, out, err = run(program, CUPTITRACE_PYTORCH="ops")
        self.assertEqual((rc, err), (0, ""))
        self.assertEqual(last_line(out), [("import done",), ("enable", "NVTX/ops"), ("disable", "NVTX/ops")])


class Chaining(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.other = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def write_other(self, body):
        with open(os.path.join(self.other, "sitecustomize.py"), "w") as f:
            f.write(body)

    PROGRAM = "import sys\nprint(repr((sys.modules['sitecustomize'].__file__, getattr(sys, 'other_ran', 0))))\n"

    def test_runs_the_sitecustomize_it_shadows(self):
        self.write_other("import sys\nsys.other_ran = getattr(sys, 'other_ran', 0) + 1\nassert __name__ == 'sitecustomize'\n")
        for variables in ({}, {"CUPTITRACE_PYTORCH": "ops"}):
            rc, out, err = run(self.PROGRAM, extra_path=[self.other], **variables)
            self.assertEqual((rc, err), (0, ""))
            self.assertEqual(last_line(out), (os.path.join(self.other, "sitecustomize.py"), 1))

    def test_its_import_of_torch_is_hooked(self):
        self.write_other("import torch\n")
        rc, out, err = run(REPORT, extra_path=[self.other], CUPTITRACE_PYTORCH="ops")
        self.assertEqual((rc, err), (0, ""))
        self.assertEqual(last_line(out)[0], [("import done",), ("enable", "NVTX/ops", "main")])

    def test_one_that_raises_is_reported_as_python_would(self):
        self.write_other("raise ValueError('boom')\n")
        rc, out, err = run("print(repr('ran'))\n", extra_path=[self.other], CUPTITRACE_PYTORCH="ops")
        self.assertEqual(rc, 0)
        self.assertEqual(err, "Error in sitecustomize; set PYTHONVERBOSE for traceback:\nValueError: boom\n")
        self.assertEqual(last_line(out), "ran")

    def test_the_one_python_itself_would_run(self):
        """Debian's /usr/lib/python3.X/sitecustomize.py where there is one; else none."""
        env = {k: v for k, v in os.environ.items() if k not in HOOK_VARIABLES and k != "PYTHONPATH"}
        probe = subprocess.run([sys.executable, "-c", "import sitecustomize; print(sitecustomize.__file__)"],
                               env=env, capture_output=True, text=True, timeout=60)
        system = probe.stdout.strip() if probe.returncode == 0 else None
        rc, out, err = run(self.PROGRAM)
        self.assertEqual((rc, err), (0, ""))
        self.assertEqual(last_line(out), (system or os.path.join(HOOK, "sitecustomize.py"), 0))


class Settings(unittest.TestCase):
    def test_values(self):
        s, m = hook.parse_settings({"CUPTITRACE_PYTORCH": "shapes", "CUPTITRACE_PYTHON_BACKTRACE": "on",
                                    "CUPTITRACE_PYTHON_BACKTRACE_DEPTH": "5", "CUDA_INJECTION64_PATH": "/x.so"})
        self.assertEqual((s.operators, s.backtrace, s.depth, s.library, m), ("shapes", True, 5, "/x.so", []))
        s, m = hook.parse_settings({})
        self.assertEqual((s.operators, s.backtrace, s.depth, s.library, m), (None, False, 3, None, []))

    def test_bad_values(self):
        s, m = hook.parse_settings({"CUPTITRACE_PYTHON_BACKTRACE": "maybe",
                                    "CUPTITRACE_PYTHON_BACKTRACE_DEPTH": "12abc"})
        self.assertEqual((s.backtrace, s.depth), (False, 3))
        self.assertEqual(m, ["CUPTITRACE_PYTHON_BACKTRACE='maybe' is not one of on, off: Python lines are not recorded",
                             "CUPTITRACE_PYTHON_BACKTRACE_DEPTH='12abc' is not a whole number from 1 to 64: using 3"])
        s, m = hook.parse_settings({"CUPTITRACE_PYTHON_BACKTRACE_DEPTH": "0"})
        self.assertEqual((s.depth, len(m)), (3, 1))


def compiled(filename, source, namespace):
    """Defines the functions of `source` as if they lived in `filename`."""
    exec(compile(textwrap.dedent(source), filename, "exec"), namespace)
    return namespace


class Frames(unittest.TestCase):
    def setUp(self):
        self.cwd = "/home/u/proj"
        self.filter = hook.FrameFilter(["/opt/py/lib/python3.12", "/opt/site/torch", "/opt/site/triton"], self.cwd)

    def test_which_files_are_skipped(self):
        skipped = self.filter.is_skipped_file
        self.assertTrue(skipped("/opt/site/torch/nn/modules/module.py"))
        self.assertTrue(skipped("/opt/site/triton/runtime/jit.py"))
        self.assertTrue(skipped("/opt/py/lib/python3.12/threading.py"))
        self.assertFalse(skipped("/opt/py/lib/python3.12/site-packages/transformers/x.py"))
        self.assertFalse(skipped("/opt/py/lib/python3.12/dist-packages/lightning/x.py"))
        self.assertFalse(skipped("/opt/site/torchvision/models/resnet.py"))  # torch's prefix, not its dir
        self.assertTrue(skipped("<frozen importlib._bootstrap>"))
        self.assertTrue(skipped("<eval_with_key>.3"))
        self.assertTrue(skipped("/tmp/torchinductor_u/ab/cabcdef.py"))
        self.assertFalse(skipped("<stdin>"))
        self.assertFalse(skipped("/home/u/proj/train.py"))
        self.assertFalse(skipped("train.py"))
        self.assertTrue(skipped(""))

    def test_paths_shown_relative_to_the_current_directory(self):
        self.assertEqual(self.filter.display("/home/u/proj/models/net.py"), "models/net.py")
        self.assertEqual(self.filter.display("/home/u/projector/x.py"), "/home/u/projector/x.py")
        self.assertEqual(self.filter.display("rel/x.py"), "rel/x.py")

    def build(self, depth=3):
        """user train.py: main -> step -> Net.forward -> torch's module call ->
        probe, twice; the texts, computed at the call as the hook does, and the
        FrameText."""
        ns = {}
        captured = []
        text = hook.FrameText(self.filter, depth)
        ns["capture"] = lambda: captured.append(text.text(sys._getframe(1)))
        compiled("/opt/site/torch/nn/modules/module.py", """
            def call_impl(f):
                return inner(f)
            def inner(f):
                return f()
            def probe():
                capture()
        """, ns)
        compiled("/home/u/proj/models/net.py", """
            class Net:
                def forward(self):
                    return call_impl(probe)
        """, ns)
        compiled("/home/u/proj/train.py", """
            def step(net):
                return net.forward()

            def main(net):
                step(net)
                step(net)
        """, ns)
        ns["main"](ns["Net"]())
        return captured, text

    def test_innermost_user_frames_first(self):
        (first, _), text = self.build()
        self.assertEqual(first, b"models/net.py:4 Net.forward <- train.py:3 step <- train.py:6 main")

    def test_depth(self):
        (first, second), text = self.build(depth=1)
        self.assertEqual(first, b"models/net.py:4 Net.forward")
        self.assertIs(first, second)  # one text for both: cached
        self.assertEqual(len(text.texts), 1)

    def test_each_call_site_its_own_text(self):
        (first, second), text = self.build(depth=3)
        self.assertEqual(second, b"models/net.py:4 Net.forward <- train.py:3 step <- train.py:7 main")
        self.assertNotEqual(first, second)
        self.assertEqual(len(text.texts), 2)

    def test_no_user_frame(self):
        ns = {}
        compiled("/opt/site/torch/x.py", "import sys\ndef f():\n    return sys._getframe(0)\n", ns)
        # Above f: this file (skipped here), unittest (the standard library).
        text = hook.FrameText(hook.FrameFilter(["/opt/site/torch", os.path.dirname(os.__file__), HERE],
                                               "/nowhere"), 3)
        self.assertIsNone(text.text(ns["f"]()))
        self.assertEqual(text.texts, {})


class FakeTracer:
    def __init__(self, push_result=0):
        self.calls = []
        self.push_result = push_result
        self.loads = 0

    def load(self):
        self.loads += 1
        return self.push, self.pop

    def push(self, text):
        self.calls.append(("push", text))
        return self.push_result

    def pop(self):
        self.calls.append(("pop",))
        return 0


class Lines(unittest.TestCase):
    """PythonLines with the fake torch, in this process, on a thread of its own
    (the mode stack is per thread)."""

    @classmethod
    def setUpClass(cls):
        sys.path.insert(0, FAKE)
        import torch
        cls.torch = torch
        cls.user = {}
        compiled(os.path.join(HERE, "user_program.py"), """
            def add(torch):
                return torch.overrides.add(1, 2)

            def size(torch):
                return torch.overrides.size(1)

            def fails(torch):
                return torch.overrides.fails(7)
        """, cls.user)

    @classmethod
    def tearDownClass(cls):
        sys.path.remove(FAKE)

    def lines(self, tracer, **kwargs):
        torch = self.torch
        return hook.PythonLines(torch, 2, "/x.so", load=tracer.load, frame_filter=hook.FrameFilter(
            [os.path.dirname(torch.__file__), os.path.dirname(os.__file__), HOOK], HERE), **kwargs)

    def on_thread(self, lines, work):
        result = []

        def body():
            lines.enter_here()
            result.append(work())

        t = threading.Thread(target=body)
        t.start()
        t.join()
        return result[0]

    def test_push_and_pop_around_each_call(self):
        tracer = FakeTracer()
        lines = self.lines(tracer)
        out = self.on_thread(lines, lambda: (self.user["add"](self.torch), self.user["add"](self.torch)))
        self.assertEqual(out, (3, 3))
        text = (b"user_program.py:3 add <- test_pyhook.py:%d "
                b"Lines.test_push_and_pop_around_each_call.<locals>.<lambda>" % (sys._getframe().f_lineno - 3))
        self.assertEqual(tracer.calls, [("push", text), ("pop",), ("push", text), ("pop",)])

    def test_no_range_around_calls_that_cannot_launch(self):
        tracer = FakeTracer()
        lines = self.lines(tracer)
        self.assertEqual(self.on_thread(lines, lambda: self.user["size"](self.torch)), 1)
        self.assertEqual(tracer.calls, [])

    def test_the_functions_exception_passes_and_the_range_is_popped(self):
        tracer = FakeTracer()
        lines = self.lines(tracer)

        def work():
            try:
                self.user["fails"](self.torch)
            except ValueError as e:
                return str(e)

        self.assertEqual(self.on_thread(lines, work), "fails 7")
        self.assertEqual([c[0] for c in tracer.calls], ["push", "pop"])

    def test_not_traced_no_pop(self):
        tracer = FakeTracer(push_result=1)
        lines = self.lines(tracer)
        self.on_thread(lines, lambda: self.user["add"](self.torch))
        self.assertEqual([c[0] for c in tracer.calls], ["push"])

    def test_library_not_loaded_yet_looked_for_every_256_calls(self):
        tracer = FakeTracer()
        found = []
        lines = self.lines(tracer)
        lines.load = lambda: found.append(1) if len(found) < 3 else tracer.load()
        self.on_thread(lines, lambda: [self.user["add"](self.torch) for _ in range(700)])
        # Calls 1, 257, 513 look and find nothing; 769 would be the next.
        self.assertEqual((len(found), tracer.loads, tracer.calls), (3, 0, []))
        self.on_thread(lines, lambda: [self.user["add"](self.torch) for _ in range(70)])
        self.assertEqual(tracer.loads, 1)
        self.assertEqual(len(tracer.calls), 2 * 2)  # found on call 769: it and 770 pushed

    def test_library_looked_for_once_torch_has_initialized_cuda(self):
        tracer = FakeTracer()
        found = []
        lines = self.lines(tracer)
        lines.load = lambda: found.append(1) if len(found) < 1 else tracer.load()
        self.on_thread(lines, lambda: [self.user["add"](self.torch) for _ in range(10)])
        self.assertEqual((len(found), tracer.loads), (1, 0))
        self.torch.cuda._initialized = True
        try:
            self.on_thread(lines, lambda: [self.user["add"](self.torch) for _ in range(3)])
        finally:
            self.torch.cuda._initialized = False
        self.assertEqual(tracer.loads, 1)
        self.assertEqual([c[0] for c in tracer.calls], ["push", "pop"] * 3)

    def test_library_without_the_functions_says_so_once_and_stops(self):
        lines = self.lines(FakeTracer())

        def load():
            raise LookupError("/x.so has no cuptitrace_v1_push_python (a build from before it)")

        lines.load = load
        err = []
        saved, hook.say = hook.say, err.append
        try:
            self.assertEqual(self.on_thread(lines, lambda: [self.user["add"](self.torch) for _ in range(600)])[0], 3)
        finally:
            hook.say = saved
        self.assertEqual(err, ["Python lines are not recorded: /x.so has no cuptitrace_v1_push_python "
                               "(a build from before it)"])
        self.assertTrue(lines.off)

    def test_under_torch_compile_the_call_alone(self):
        tracer = FakeTracer()
        lines = self.lines(tracer)
        self.torch.compiler._compiling = True
        try:
            self.assertEqual(self.on_thread(lines, lambda: self.user["add"](self.torch)), 3)
        finally:
            self.torch.compiler._compiling = False
        self.assertEqual(tracer.calls, [])

    def test_a_failure_inside_the_mode_just_calls_the_function(self):
        tracer = FakeTracer()
        lines = self.lines(tracer)
        calls = []

        def broken(frame):
            raise RuntimeError("broken")

        lines.frames.text = broken
        real_add = self.torch.overrides.add.__wrapped__
        counted = lambda a, b: calls.append(1) or real_add(a, b)  # noqa: E731
        self.assertEqual(self.on_thread(lines, lambda: self.torch.overrides.dispatch(counted, 1, 2)), 3)
        self.assertEqual((calls, tracer.calls), ([1], []))

    def test_a_failing_pop_is_swallowed(self):
        tracer = FakeTracer()
        lines = self.lines(tracer)

        def pop():
            raise OSError("pop")

        tracer.pop = pop
        self.assertEqual(self.on_thread(lines, lambda: self.user["add"](self.torch)), 3)

    def test_the_real_library_lookup(self):
        """load_library through ctypes: a library the process has not loaded is
        'not yet'; one it has, without the functions, is refused."""
        lines = self.lines(FakeTracer())
        lines.library = __file__
        self.assertIsNone(lines.load_library())
        libc = None
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split()[-1]
                if "/libc.so" in path or "/libc-" in path:
                    libc = path
                    break
        if libc is None:
            self.skipTest("no libc in /proc/self/maps")
        lines.library = libc
        with self.assertRaises(LookupError):
            lines.load_library()

    def test_end_to_end_in_a_child(self):
        program = """
        import torch
        print(repr(torch.overrides.add(2, 3)))
        """
        rc, out, err = run(program, CUPTITRACE_PYTHON_BACKTRACE="on", CUDA_INJECTION64_PATH=__file__)
        self.assertEqual((rc, err, last_line(out)), (0, "", 5))
        rc, out, err = run(program, CUPTITRACE_PYTHON_BACKTRACE="on")
        self.assertEqual((rc, last_line(out)), (0, 5))
        self.assertEqual(err, "cuptitrace: Python lines are not recorded: CUDA_INJECTION64_PATH is not set, "
                              "so there is no tracer to tell\n")


if __name__ == "__main__":
    unittest.main()
