"""`python -m memcli` and the `memcli` console script; the one place that exits."""

from __future__ import annotations

import contextlib
import gc
import os
import sys


def main() -> None:
    if "search" in sys.argv[1:]:
        # `memcli search` answered from the index before the command line is even imported
        # (memcli.quick); None: it cannot tell, and the full command line runs.
        from memcli.quick import main as quick

        answered = quick(sys.argv[1:])
        if answered is not None:
            os._exit(answered)
    if "watch" not in sys.argv[1:]:
        # A run is short and makes few reference cycles, but parses a big workspace into
        # millions of objects that the cyclic collector would scan again and again (list on
        # a decade of notes: a quarter of its time). The long-running watch keeps it.
        gc.disable()
    from memcli.cli.app import app

    code = app(standalone_mode=False)
    # Every file is closed and every lock released by now; what is left is freeing the
    # millions of objects a big workspace was parsed into, one by one (seconds on a decade
    # of notes). The output is flushed, then the process ends without that.
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # the reader went away (`| head`)
            stream.flush()
    os._exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
