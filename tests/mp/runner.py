# Runs MicroPython test modules: every function named test_* in each module given on the
# command line.  Used under the MicroPython unix port (and works under CPython too), because
# pytest does not run there.  Prints one line per test and "MP-RESULT passed=N failed=M".
import sys

try:
    import gc
except ImportError:  # pragma: no cover
    gc = None


def run(names):
    passed = 0
    failed = 0
    for name in names:
        if name.endswith(".py"):
            name = name[:-3]
        name = name.replace("/", ".").split(".")[-1]
        mod = __import__(name)
        for attr in sorted(dir(mod)):
            if not attr.startswith("test_"):
                continue
            fn = getattr(mod, attr)
            if not callable(fn):
                continue
            try:
                fn()
                passed += 1
                print("PASS", name, attr)
            except Exception as e:  # report and go on to the next test
                failed += 1
                print("FAIL", name, attr, type(e).__name__, e)
                if hasattr(sys, "print_exception"):
                    sys.print_exception(e)
            if gc:
                gc.collect()
    print("MP-RESULT passed=%d failed=%d" % (passed, failed))
    return failed == 0 and passed > 0


if __name__ == "__main__":
    ok = run(sys.argv[1:])
    sys.exit(0 if ok else 1)
