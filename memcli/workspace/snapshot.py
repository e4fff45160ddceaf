"""A parsed picture of the workspace at one moment: what `core` plans from."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from memcli.core.entries import Document, Entry, parse
from memcli.core.roles import MemoryFile, Role
from memcli.workspace.files import FileState, read_text
from memcli.workspace.layout import Layout, scan


@dataclass(frozen=True, slots=True)
class ParsedFile:
    file: MemoryFile
    state: FileState
    doc: Document

    @property
    def chars(self) -> int:
        return len(self.doc.render())


@dataclass(frozen=True, slots=True)
class Snapshot:
    layout: Layout
    files: tuple[ParsedFile, ...]

    @property
    def root(self) -> Path:
        return self.layout.root

    def entries(self) -> Iterator[Entry]:
        for parsed in self.files:
            yield from parsed.doc.entries

    def get(self, rel: str) -> ParsedFile | None:
        return next((p for p in self.files if p.file.rel == rel), None)


Parser = Callable[[MemoryFile, FileState, str], Document]


def parse_file(file: MemoryFile, state: FileState, text: str) -> Document:
    return parse(text, file.rel, file.date)


def read_file(root: Path, file: MemoryFile, max_bytes: int, parser: Parser = parse_file) -> ParsedFile:
    """Read and parse one file (see `read_unparsed`)."""
    state, text = read_unparsed(root, file, max_bytes)
    return ParsedFile(file, state, parser(file, state, text))


def read_unparsed(root: Path, file: MemoryFile, max_bytes: int) -> tuple[FileState, str]:
    """One file's state and text. Bootstrap files, which memcli never writes, may be links
    out of the workspace (a shared AGENTS.md); every other file must resolve inside it."""
    return read_text(root / file.rel, root, max_bytes, allow_outside=file.role is Role.BOOTSTRAP)


def is_memory(file: MemoryFile) -> bool:
    return file.is_memory


def take_snapshot(
    root: Path,
    max_bytes: int,
    select: Callable[[MemoryFile], bool] = is_memory,
    parser: Parser = parse_file,
    progress: Callable[[int, int], None] | None = None,
) -> Snapshot:
    """Read and parse the selected files (memory files by default), refusing bad ones;
    `parser` turns each file's text into its document (a caller may know it already);
    `progress(done, total)` hears of each file read."""
    layout = scan(root)
    chosen = [f for f in layout.files if select(f)]
    files: list[ParsedFile] = []
    for n, f in enumerate(chosen, 1):
        files.append(read_file(root, f, max_bytes, parser))
        if progress is not None:
            progress(n, len(chosen))
    return Snapshot(layout, tuple(files))
