"""Runs the conformance checker (../shared/tools/hudi_check.py) unchanged, then leaves the
interpreter with os._exit and the checker's own exit status.

Why: pyarrow 26.0.1 aborts at interpreter shutdown ("terminate called without an active
exception", SIGABRT) in a few percent of the processes that read Parquet from memory with its
thread pool, which the checker does for Parquet log blocks; reproduced without hudi-c or the
checker by a 5-line pyarrow script (7 of 40 runs). The checker's output and verdict are complete
before that; skipping the interpreter's teardown keeps the crash from failing tests at random.

    python tests/run_hudi_check.py ../shared/tools/hudi_check.py TABLE [options]
"""

import os
import runpy
import sys


def main() -> int:
    checker = sys.argv[1]
    sys.argv = sys.argv[1:]
    try:
        runpy.run_path(checker, run_name="__main__")
        code = 0
    except SystemExit as e:
        if e.code is None:
            code = 0
        elif isinstance(e.code, int):
            code = e.code
        else:
            print(e.code, file=sys.stderr)
            code = 1
    return code


if __name__ == "__main__":
    status = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
