"""How results reach the user: rich tables on a terminal, plain text in a pipe, JSON on request.

stdout carries data only; notes and warnings go to stderr. rich is imported
only when a table is drawn on a terminal, so piped runs and hooks start fast.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import islice
from typing import IO, Any, Protocol, TypeVar, cast

import typer

from memcli.cli.layout import Column, display_width, hanging, render_table

T = TypeVar("T")


class Written:
    """Whether this run wrote data on stdout yet (an error under --json is a JSON object on
    stdout only when nothing else is: stdout stays one JSON document)."""

    data = False


def write_stdout(text: str) -> None:
    """Write data; when the reader went away (`memcli list | head`), stop quietly."""
    Written.data = True
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
            yield from _list_chunks(value, _same)
        else:
            yield _dump(value, indent=True).replace("\n", "\n  ")
    yield "\n}\n"


def _same(item: Any) -> Any:
    return item


def _list_chunks(items: Sequence[T], to_json: Callable[[T], Any]) -> Iterator[str]:
    """A long list, one compact item a line, CHUNK_LINES items at a time: each item is turned
    into JSON (`to_json`) only when its chunk is written."""
    yield "["
    for start in range(0, len(items), CHUNK_LINES):
        part = items[start : start + CHUNK_LINES]
        yield ("," if start else "") + ",".join("\n    " + _dump(to_json(item)) for item in part)
    yield "\n  ]"


def compact(value: Any) -> str:
    """One item of a long list as `json_stream_chunks` writes it (one line)."""
    return _COMPACT.encode(value)


def json_stream_chunks(
    key: str, items: Iterable[T], to_json: Callable[[T], Any], encoded: bool = False
) -> Iterator[str]:
    """`json_list_chunks` of items that come one by one (`memcli list` reading note after
    note): the same bytes, with no more than a chunk of items held at once. `encoded`:
    the items are their JSON already (`compact`), as a sorted list keeps them."""
    it = iter(items)
    head = list(islice(it, BIG_LIST + 1))
    if len(head) <= BIG_LIST:
        read: Callable[[T], Any] = cast(Callable[[T], Any], json.loads) if encoded else to_json
        yield from json_list_chunks(key, head, read)
        return

    def line(item: Any) -> str:
        return "\n    " + (item if encoded else _dump(to_json(item)))

    yield "{" + f"\n  {_dump(key)}: " + "["
    first = True
    chunk = head
    while chunk:
        yield ("" if first else ",") + ",".join(line(item) for item in chunk)
        first = False
        chunk = list(islice(it, CHUNK_LINES))
    yield "\n  ]" + "\n}\n"


def json_list_chunks(key: str, items: Sequence[T], to_json: Callable[[T], Any]) -> Iterator[str]:
    """`json_chunks({key: [to_json(i) for i in items]})`, the same bytes, with no more than a
    chunk of the list's JSON objects in memory at once (`memcli list` on a decade: 10^5
    entries)."""
    if len(items) <= BIG_LIST:
        yield from json_chunks({key: [to_json(item) for item in items]})
        return
    yield "{" + f"\n  {_dump(key)}: "
    yield from _list_chunks(items, to_json)
    yield "\n}\n"


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


COLOR_MODES = ("auto", "always", "never")
DEFAULT_PAGER = "less -FRX"


def use_color(mode: str, stream: IO[str]) -> bool:
    """--color: `always` and `never` as said; `auto` colours a terminal, unless NO_COLOR is
    set (no-color.org) or the terminal is dumb."""
    if mode == "always":
        return True
    if mode == "never" or os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _fitted(text: str) -> str:
    """A remark for stderr, wrapped to the terminal it is shown on (continuation lines
    indented); as it is in a pipe or a log."""
    try:
        terminal = sys.stderr.isatty()
    except (AttributeError, ValueError):
        terminal = False
    if not terminal or "\n" in text:
        return text + "\n"
    lines = hanging(text, shutil.get_terminal_size((80, 24)).columns, 2)
    return "\n  ".join(lines) + "\n"


class Pausable(Protocol):
    def pause(self) -> None: ...


class Output:
    def __init__(
        self,
        json_mode: bool = False,
        quiet: bool = False,
        verbose: int = 0,
        color: str = "auto",
        progress: Pausable | None = None,
    ) -> None:
        self.json_mode = json_mode
        self.quiet = quiet
        self.verbose = verbose
        self.color = not json_mode and use_color(color, sys.stdout)
        self.progress = progress  # its display stops before anything is printed

    @property
    def terminal(self) -> bool:
        return sys.stdout.isatty()

    @property
    def width(self) -> int | None:
        """The terminal's columns ($COLUMNS first); None in a pipe, where nothing is wrapped."""
        return shutil.get_terminal_size((80, 24)).columns if self.terminal else None

    def _settle(self) -> None:
        if self.progress is not None:
            self.progress.pause()

    def json(self, data: Any) -> None:
        self._settle()
        for chunk in json_chunks(data):
            write_stdout(chunk)

    def json_list(self, key: str, items: Sequence[T], to_json: Callable[[T], Any]) -> None:
        """`{key: [to_json(item), ...]}` as `json` writes it, each item made as it goes out."""
        self._settle()
        for chunk in json_list_chunks(key, items, to_json):
            write_stdout(chunk)

    def json_stream(
        self, key: str, items: Iterable[T], to_json: Callable[[T], Any], encoded: bool = False
    ) -> None:
        """`json_list` of items made as they are written (see `json_stream_chunks`)."""
        self._settle()
        for chunk in json_stream_chunks(key, items, to_json, encoded):
            write_stdout(chunk)

    def line(self, text: str = "") -> None:
        self._settle()
        write_stdout(text + "\n")

    def lines(self, lines: Sequence[str]) -> None:
        self._settle()
        write_stdout("".join(line + "\n" for line in lines))

    def note(self, text: str) -> None:
        """A remark for the human (stderr), silenced by -q."""
        if not self.quiet:
            self._settle()
            sys.stderr.write(_fitted(text))

    def warn(self, text: str) -> None:
        """A warning (stderr); -q keeps only data and errors."""
        if not self.quiet:
            self._settle()
            sys.stderr.write(_fitted(f"warning: {text}"))

    def debug(self, text: str) -> None:
        if self.verbose:
            self._settle()
            sys.stderr.write(f"debug: {text}\n")

    def table(
        self, columns: Sequence[str | Column], rows: Sequence[Sequence[str]], title: str | None = None
    ) -> None:
        """Rows under their column names: on a terminal fitted to its width (numbers whole,
        text wrapped, beneath its row or left out, in that order); in a pipe one row a line."""
        width = self.width
        lines, dropped = render_table(columns, rows, width, self.color)
        if title:
            lines.insert(0, title)
        self.lines(lines)
        if dropped:
            self.note(f"({', '.join(dropped)} left out at {width} columns; --json has everything)")

    def page(self, text: str) -> None:
        """Long output (a diff) through a pager on a terminal, as git does: $MEMCLI_PAGER,
        then $PAGER, else `less -FRX`; never in a pipe."""
        self._settle()
        if not self.terminal or text.count("\n") < shutil.get_terminal_size((80, 24)).lines:
            write_stdout(text)
            return
        command = os.environ.get("MEMCLI_PAGER", os.environ.get("PAGER", DEFAULT_PAGER)).strip()
        if not command or command == "cat" or shutil.which(command.split()[0]) is None:
            write_stdout(text)
            return
        import subprocess

        env = {**os.environ, "LESS": os.environ.get("LESS", "FRX")}
        sys.stdout.flush()
        try:
            with subprocess.Popen(command, shell=True, stdin=subprocess.PIPE, env=env) as pager:
                assert pager.stdin is not None
                try:
                    pager.stdin.write(text.encode("utf-8", "replace"))
                    pager.stdin.close()
                except BrokenPipeError:  # the reader quit the pager early
                    pass
        except OSError:
            write_stdout(text)
