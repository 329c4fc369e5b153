"""A Python program with the tracer's stand-in (tests/integration/endings_sink.cpp)
loaded from CUDA_INJECTION64_PATH, as the CUDA driver loads the tracer once
CUDA is up; untraced without it. It ends the way argv[1] says:

  subprocess  runs `echo hello` through subprocess.check_output, three
              made-up folders in front of PATH; prints what came back, then
              os._exit(0)                                    -> 0
  execvp      os.execvp("echo", ...), the same PATH: CPython tries each
              folder in turn                                 -> echo's 0
  sleep       prints READY, sleeps until a signal ends it: SIGINT becomes
              KeyboardInterrupt, CPython sets SIG_DFL and raises it again
  os_exit     os._exit(4)                                    -> 4
"""
import ctypes
import os
import subprocess
import sys
import time

library = os.environ.get("CUDA_INJECTION64_PATH")
if library:
    ctypes.CDLL(library).InitializeInjection()

MISSES = ["/nonexistent/one", "/nonexistent/two", "/nonexistent/three"]


def path_with_misses():
    os.environ["PATH"] = os.pathsep.join(MISSES + [os.environ.get("PATH", "/usr/bin:/bin")])


mode = sys.argv[1]
if mode == "subprocess":
    path_with_misses()
    out = subprocess.check_output(["echo", "hello"], stderr=subprocess.STDOUT)
    sys.stdout.write(repr(out) + "\n")
    sys.stdout.flush()
    os._exit(0)
elif mode == "execvp":
    path_with_misses()
    sys.stdout.flush()
    os.execvp("echo", ["echo", "exec'd"])
elif mode == "sleep":
    print("READY", flush=True)
    time.sleep(30)
    sys.exit(1)
elif mode == "os_exit":
    os._exit(4)
sys.exit(2)
