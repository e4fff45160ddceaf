"""`python -m memcli` and the `memcli` console script; the one place that exits."""

from __future__ import annotations

import sys


def main() -> None:
    from memcli.cli.app import app

    sys.exit(app())


if __name__ == "__main__":
    main()
