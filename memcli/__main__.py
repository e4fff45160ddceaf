"""`python -m memcli` and the `memcli` console script; the one place that exits."""

from __future__ import annotations

import gc
import sys


def main() -> None:
    if "watch" not in sys.argv[1:]:
        # A run is short and makes few reference cycles, but parses a big workspace into
        # millions of objects that the cyclic collector would scan again and again (list on
        # a decade of notes: a quarter of its time). The long-running watch keeps it.
        gc.disable()
    from memcli.cli.app import app

    sys.exit(app())


if __name__ == "__main__":
    main()
