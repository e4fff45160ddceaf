"""How results reach the user: rich tables on a terminal, plain text in a pipe, JSON on request.

stdout carries data only; notes and warnings go to stderr. rich is imported
only when a table is drawn on a terminal, so piped runs and hooks start fast.
"""

from __future__ import annotations

import json
import os
import sys
import unicodedata
from collections.abc import Iterator, Sequence
from typing import Any

import typer


def write_stdout(text: str) -> None:
    """Write data; when the reader went away (`memcli list | head`), stop quietly."""
    try:
        sys.stdout.write(text)
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        raise typer.Exit(0) from None


BIG_LIST = 200  # a longer list is written one item per line, each item on one line
CHUNK_LINES = 2000  # lines of a long list written to stdout at once


_COMPACT = json.JSONEncoder(ensure_ascii=False, default=str)  # made once: a long list has 10^5 items
_INDENTED = json.JSONEncoder(ensure_ascii=False, indent=2, default=str)


def _dump(value: Any, indent: bool = False) -> str:
    return (_INDENTED if indent else _COMPACT).encode(value)


def json_chunks(data: Any) -> Iterator[str]:
    """One JSON document in pieces, indented for reading; long lists (list's entries,
    dedupe's groups) get one compact item per line, which the C encoder writes many times
    faster than an indented tree of a hundred thousand objects, and which go out as they
    are made instead of as one string the size of the whole output."""
    big = isinstance(data, dict) and any(isinstance(v, list) and len(v) > BIG_LIST for v in data.values())
    if not big:
        yield _dump(data, indent=True) + "\n"
        return
    yield "{"
    for n, (key, value) in enumerate(data.items()):
        yield ("," if n else "") + f"\n  {_dump(key)}: "
        if isinstance(value, list) and len(value) > BIG_LIST:
            yield "["
            for start in range(0, len(value), CHUNK_LINES):
                part = value[start : start + CHUNK_LINES]
                yield ("," if start else "") + ",".join("\n    " + _dump(item) for item in part)
            yield "\n  ]"
        else:
            yield _dump(value, indent=True).replace("\n", "\n  ")
    yield "\n}\n"


def display_width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def one_line(text: str, limit: int | None = None) -> str:
    flat = " ".join(text.split())
    if limit is not None and display_width(flat) > limit:
        out, width = [], 0
        for ch in flat:
            w = display_width(ch)
            if width + w > limit - 1:
                break
            out.append(ch)
            width += w
        return "".join(out) + "…"
    return flat


class Output:
    def __init__(self, json_mode: bool = False, quiet: bool = False, verbose: int = 0) -> None:
        self.json_mode = json_mode
        self.quiet = quiet
        self.verbose = verbose

    @property
    def terminal(self) -> bool:
        return sys.stdout.isatty()

    def json(self, data: Any) -> None:
        for chunk in json_chunks(data):
            write_stdout(chunk)

    def line(self, text: str = "") -> None:
        write_stdout(text + "\n")

    def note(self, text: str) -> None:
        """A remark for the human (stderr), silenced by -q."""
        if not self.quiet:
            sys.stderr.write(text + "\n")

    def warn(self, text: str) -> None:
        sys.stderr.write(f"warning: {text}\n")

    def debug(self, text: str) -> None:
        if self.verbose:
            sys.stderr.write(f"debug: {text}\n")

    def table(
        self,
        columns: Sequence[str],
        rows: Sequence[Sequence[str]],
        title: str | None = None,
        wrap_last: bool = True,
    ) -> None:
        if self.terminal:
            self._rich_table(columns, rows, title, wrap_last)
        else:
            self._plain_table(columns, rows, title)

    def _rich_table(
        self, columns: Sequence[str], rows: Sequence[Sequence[str]], title: str | None, wrap_last: bool
    ) -> None:
        from rich.console import Console
        from rich.table import Table

        table = Table(title=title, title_justify="left", show_edge=False, pad_edge=False)
        for i, name in enumerate(columns):
            last = i == len(columns) - 1
            table.add_column(
                name,
                overflow="fold" if last and wrap_last else "ellipsis",
                no_wrap=not last,
                ratio=1 if last else None,
            )
        for row in rows:
            table.add_row(*row)
        Console(highlight=False).print(table)

    def _plain_table(self, columns: Sequence[str], rows: Sequence[Sequence[str]], title: str | None) -> None:
        if title:
            self.line(title)
        widths = [display_width(c) for c in columns]
        for row in rows:
            for i, cell in enumerate(row[:-1]):
                widths[i] = max(widths[i], display_width(cell))

        def fmt(cells: Sequence[str]) -> str:
            parts = [
                cell + " " * (widths[i] - display_width(cell)) if i < len(cells) - 1 else cell
                for i, cell in enumerate(cells)
            ]
            return "  ".join(parts).rstrip()

        self.line(fmt(columns))
        for row in rows:
            self.line(fmt(row))
