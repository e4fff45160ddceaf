"""Finding and rendering summary templates (SPEC §8).

A template `NAME` is the file `NAME.md.j2` in `<workspace>/templates/`, then in the
configured `templates_dir`, then among the templates shipped in the package. It is
rendered in Jinja2's sandbox: no attribute of Python's internals is reachable, and an
unknown name is an error. Any error names the template file and its line (exit 3): a
syntax error, and whatever the template raises while it renders (a division by zero, a
range() over the sandbox's 100,000 items, a macro that calls itself for ever, a filter
given the wrong type, memory running out), and the limits below.

A template is the user's code, and gc renders one for every finished week, so rendering
is bounded; past a bound the render stops with a DataError naming the template (and the
line it had reached, when it is known) and the limit:

- the whole render of a template that is not one memcli ships (the workspace's, or one
  in `templates_dir`) runs in a worker process forked for it, which is killed
  RENDER_SECONDS + KILL_GRACE seconds after it started and may map at most
  MAX_RENDER_MEMORY bytes more than it inherited (RLIMIT_AS). No single operation can
  escape these two: a filter such as `center(10**9)` runs out of memory at once, one such
  as `wordwrap(1)` over a long text is killed on time. The worker works on any thread (the
  watch daemon's), sets no signal handler and no timer (SIGALRM stays whoever's), closes
  the workspace lock it inherited and dies with its parent. Where no process can be
  forked, the render runs here, bounded by the checks below only;
- within the render, each template (the shipped ones run here, in this process: memcli's
  own code, which only lays out what it is given, and forking costs ~3 ms a render): at
  most MAX_RENDER_STEPS steps, a step being one turn of a `{% for %}` loop or one call made
  by the template (a macro, a method, range(), loop.cycle…), and at most RENDER_SECONDS of
  wall-clock time and MAX_RENDER_MEMORY of growth in the process's peak memory, both
  checked at a step, at most every CHECK_EVERY seconds. These stop nested loops or a macro
  that fans out, and give the line the template had reached;
- output: at most `max_bytes` characters (the caller's max_file_bytes, as `summarize`
  gives; MAX_RENDER_BYTES when it gives none): a longer summary could not be read back by
  memcli. The text is produced piece by piece (Template.generate) and dropped as soon as
  it passes the limit. A text that holds a git merge-conflict marker (<<<<<<< … =======
  … >>>>>>>) is refused too: memcli would refuse to read the summary back, and every
  later command with it;
- single operations refused before they are computed: a string or list repeated by `*`
  past `max_bytes` and an integer power of more than MAX_POWER_BITS bits (the sandbox
  intercepts both operators).

The step checks are made by the template's own code, not by a signal or a timer: each
`for` loop's iterable is wrapped at compile time and each call goes through the sandbox's
`call`.
"""

from __future__ import annotations

import contextlib
import contextvars
import gc
import json
import os
import resource
import select
import signal
import sys
import time
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from memcli.core.entries import conflict_marker_line
from memcli.core.summarize import Digest, front_matter
from memcli.errors import DataError
from memcli.parallel import worker_starts
from memcli.workspace.files import read_config_text

# The templates memcli ships: memcli/templates/ once installed from a wheel (pyproject.toml
# puts the repository's top-level templates/ there); else templates/ beside the package, in
# the checkout an editable install runs from (setuptools' editable finder does not map a
# folder without __init__.py).
SHIPPED = Path(__file__).resolve().parent.parent / "templates"
if not SHIPPED.is_dir():
    SHIPPED = SHIPPED.parent.parent / "templates"
SUFFIX = ".md.j2"
NAMES = ("weekly-digest", "session-summary", "compaction-summary")
MAX_TEMPLATE_BYTES = 1 << 20
MAX_RENDER_STEPS = 1_000_000  # loop turns and calls of one render
RENDER_SECONDS = 2.0  # a shipped template renders a week in milliseconds
KILL_GRACE = 1.0  # a render worker still running RENDER_SECONDS + this after it started is killed
MAX_RENDER_MEMORY = 512 << 20  # growth of peak resident memory (a worker: of its address space)
MAX_RENDER_BYTES = 10 << 20  # output, when the caller names no max_file_bytes
MAX_POWER_BITS = 1 << 16  # an integer power larger than this (~20,000 digits) is refused
CHECK_EVERY = 0.01  # seconds between two checks of the clock's deadline and of memory
COUNTED = "_memcli_counted"  # the filter wrapped around every {% for %} loop's iterable

if TYPE_CHECKING:
    from jinja2 import Template
    from jinja2.runtime import Context


def template_places(root: Path, configured: str) -> list[Path]:
    places = [root / "templates"]
    if configured:
        folder = Path(configured).expanduser()
        places.append(folder if folder.is_absolute() else root / folder)
    places.append(SHIPPED)
    return places


def find_template(name: str, root: Path, configured: str = "") -> Path:
    """The file of template `name` (a bare name, or a file name ending in .j2)."""
    file_name = name if name.endswith(".j2") else f"{name}{SUFFIX}"
    if "/" in file_name or "\\" in file_name or file_name.startswith("."):
        raise DataError(f"template name {name!r} is not a plain name", "name a template like weekly-digest")
    places = template_places(root, configured)
    for place in places:
        candidate = place / file_name
        if candidate.is_file():
            return candidate
        if candidate.exists():  # a folder, a FIFO (never opened: reading one would hang)
            raise DataError(
                f"template {candidate} is not a regular file",
                "make it a template file, or remove it to use the next one",
            )
    shipped = ", ".join(NAMES)
    looked = ", ".join(str(p) for p in places)
    raise DataError(f"no template {name!r} (looked in {looked})", f"shipped templates: {shipped}")


class RenderLimit(Exception):
    """A template passed one of the bounds on rendering (raised inside its code, so that
    Jinja's traceback gives the line)."""


def _peak_memory() -> int:
    """The process's peak resident memory in bytes (ru_maxrss is KiB on Linux, bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if sys.platform == "darwin" else peak * 1024)


class _Budget:
    """What one render may still use; shared by the hooks through a context variable, so
    each thread renders under its own budget."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.steps = MAX_RENDER_STEPS
        now = time.monotonic()
        self.deadline = now + RENDER_SECONDS
        self.next_check = now + CHECK_EVERY
        self.memory = _peak_memory() + MAX_RENDER_MEMORY

    def step(self) -> None:
        self.steps -= 1
        if self.steps < 0:
            raise RenderLimit(f"stopped after {MAX_RENDER_STEPS:,} loop turns and calls (the limit)")
        now = time.monotonic()
        if now < self.next_check:
            return
        self.next_check = now + CHECK_EVERY
        if now > self.deadline:
            raise RenderLimit(f"stopped after {RENDER_SECONDS:g} s of rendering (the limit)")
        if _peak_memory() > self.memory:
            raise RenderLimit(f"stopped after using {MAX_RENDER_MEMORY >> 20} MiB of memory (the limit)")

    def repeat(self, left: Any, right: Any) -> None:
        """`sequence * n` (either way round) no longer than the output may be."""
        for seq, times in ((left, right), (right, left)):
            sequence = isinstance(seq, str | bytes | list | tuple) and isinstance(times, int)
            if sequence and len(seq) * times > self.max_bytes:
                raise RenderLimit(
                    f"'*' would make {len(seq) * times:,} items, more than the output may hold "
                    f"({self.max_bytes:,}, the limit)"
                )

    @staticmethod
    def power(base: Any, exponent: Any) -> None:
        """`base ** exponent` on integers: refused when the result would be huge (Python
        computes it in one uninterruptible step)."""
        integers = isinstance(base, int) and isinstance(exponent, int) and exponent > 0
        if integers and exponent * abs(base).bit_length() > MAX_POWER_BITS and abs(base) > 1:
            raise RenderLimit(f"a power of over {MAX_POWER_BITS:,} bits (the limit)")


_budget: contextvars.ContextVar[_Budget | None] = contextvars.ContextVar("memcli_render_budget", default=None)


class _Counted:
    """A `{% for %}` loop's iterable whose every turn is a step of the budget; its length
    is the iterable's (loop.length, loop.revindex)."""

    __slots__ = ("budget", "items")

    def __init__(self, items: Any, budget: _Budget) -> None:
        self.items = items
        self.budget = budget

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[Any]:
        for item in self.items:
            self.budget.step()
            yield item


def _counted(context: Context, items: Any) -> Any:
    """The filter: `items` counted under the render's budget. It takes the context only so
    that Jinja2 never calls it at compile time (constant folding of a literal list or
    string would leave that loop uncounted)."""
    budget = _budget.get()
    return items if budget is None else _Counted(items, budget)


def _environment() -> Any:
    """Jinja2's sandbox with memcli's hooks on calls, `*` and `**` (made once, on first use:
    importing Jinja2 costs the commands that render nothing)."""
    from jinja2 import StrictUndefined, pass_context
    from jinja2.sandbox import SandboxedEnvironment

    class Sandbox(SandboxedEnvironment):
        intercepted_binops = frozenset({"*", "**"})

        def call(self, context: Context, obj: Any, /, *args: Any, **kwargs: Any) -> Any:
            budget = _budget.get()
            if budget is not None:
                budget.step()
            return super().call(context, obj, *args, **kwargs)

        def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
            budget = _budget.get()
            if budget is not None:
                if operator == "*":
                    budget.repeat(left, right)
                else:
                    budget.power(left, right)
            return super().call_binop(context, operator, left, right)

    env = Sandbox(undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.filters[COUNTED] = pass_context(_counted)
    return env


_env: Any = None
_compiled: dict[str, Template] = {}  # template source -> compiled template (gc renders one per week)


def _compile(source: str) -> Template:
    """The template, each `{% for %}` loop's iterable passed through the counting filter."""
    global _env
    from jinja2 import nodes

    compiled = _compiled.get(source)
    if compiled is None:
        if _env is None:
            _env = _environment()
        tree = _env.parse(source)
        for loop in list(tree.find_all(nodes.For)):
            loop.iter = nodes.Filter(loop.iter, COUNTED, [], [], None, None, lineno=loop.iter.lineno)
        tree.set_environment(_env)  # the new nodes too
        compiled = _compiled[source] = _env.from_string(tree)
    return compiled


# What a template can raise while it renders: Jinja2's own errors (SecurityError and
# UndefinedError among them) and those of the Python operations and filters it runs.
RENDER_ERRORS = (
    RenderLimit,
    ArithmeticError,  # 1/0, 1//0, a float past its range, the sandbox's "Range too big"
    RecursionError,  # a macro calling itself
    MemoryError,
    LookupError,
    TypeError,
    ValueError,
    AttributeError,
)


def render_template(path: Path, context: dict[str, Any], max_bytes: int = MAX_RENDER_BYTES) -> str:
    """The template's text with `context`, in Jinja2's sandbox, within the bounds above
    (`max_bytes`: the longest text it may give): a template memcli does not ship is
    rendered in a worker process."""
    from jinja2 import TemplateError, TemplateSyntaxError

    name = str(path)
    source = read_config_text(path, MAX_TEMPLATE_BYTES)
    try:
        compiled = _compile(source)  # here: the worker inherits it, the next render reuses it
    except TemplateSyntaxError as exc:
        raise DataError(f"template {name}, line {exc.lineno}: {exc.message}", "fix the template") from None
    except (TemplateError, *RENDER_ERRORS) as exc:
        raise DataError(f"template {name}: {_what(exc)}", _hint(exc)) from None
    if is_shipped(path):
        text = _render(compiled, name, context, max_bytes)
    else:
        text = _render_in_worker(compiled, name, context, max_bytes)
    marker = conflict_marker_line(text)
    if marker is not None:
        raise DataError(
            f"template {name}: its text holds a merge-conflict marker (<<<<<<< … >>>>>>>) at line "
            f"{marker}; memcli would refuse to read such a summary back, so it is not written",
            "take the marker lines out of the template (or of the notes it lays out)",
        )
    return text


def is_shipped(path: Path) -> bool:
    """One of the templates memcli ships (rendered in this process: see the module's doc)."""
    if path.parent == SHIPPED:  # as find_template gives it
        return True
    try:
        return path.resolve().parent == SHIPPED
    except OSError:
        return False


def _render(compiled: Template, name: str, context: dict[str, Any], max_bytes: int) -> str:
    """The render itself, under the step, time, memory and output checks."""
    from jinja2 import TemplateError

    budget = _Budget(max_bytes)
    token = _budget.set(budget)
    pieces: list[str] = []
    try:
        size = 0
        stream: Any = compiled.generate(**context)  # a generator: closed when stopped
        try:
            for piece in stream:
                size += len(piece)  # characters: never more than the UTF-8 bytes they take
                if size > max_bytes:
                    line = _generator_line(compiled, stream)
                    where = f", line {line}" if line else ""
                    raise DataError(
                        f"template {name}{where}: its text passes {max_bytes:,} bytes (the limit, "
                        "max_file_bytes) and was stopped",
                        "a summary template should lay out the sections it is given",
                    )
                pieces.append(piece)
        finally:
            stream.close()
    except (TemplateError, *RENDER_ERRORS) as exc:
        line = _template_line(exc)
        where = f", line {line}" if line else ""
        raise DataError(f"template {name}{where}: {_what(exc)}", _hint(exc)) from None
    finally:
        _budget.reset(token)
    return "".join(pieces).rstrip("\n") + "\n"


def _render_in_worker(compiled: Template, name: str, context: dict[str, Any], max_bytes: int) -> str:
    """`_render` in a forked worker, killed past RENDER_SECONDS + KILL_GRACE, its memory
    capped; its text (or its DataError) comes back through a pipe."""
    if not hasattr(os, "fork") or not hasattr(select, "poll"):
        return _render(compiled, name, context, max_bytes)  # bounded by the step checks only
    with contextlib.suppress(ImportError):  # here, once: worker_starts uses it in each worker
        import ctypes  # noqa: F401

    read_fd, write_fd = os.pipe()
    parent = os.getpid()
    try:
        pid = os.fork()
    except OSError:  # no process to spare (or no fork): here, bounded by the step checks
        os.close(read_fd)
        os.close(write_fd)
        return _render(compiled, name, context, max_bytes)
    if pid == 0:
        _worker(read_fd, write_fd, parent, compiled, name, context, max_bytes)
    os.close(write_fd)
    deadline = time.monotonic() + RENDER_SECONDS + KILL_GRACE
    chunks: list[bytes] = []
    ended = False
    try:
        poller = select.poll()
        poller.register(read_fd, select.POLLIN)
        while not ended:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            if poller.poll(max(1, int(left * 1000))):
                chunk = os.read(read_fd, 1 << 20)
                chunks.append(chunk)
                ended = not chunk
    finally:
        os.close(read_fd)
        if not ended:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        status = _reap(pid)
    if not ended:
        return _refused(
            name,
            f"stopped after {RENDER_SECONDS + KILL_GRACE:g} s of rendering (the limit; one operation "
            "ran past it)",
        )
    return _outcome(name, b"".join(chunks), status)


def _worker(
    read_fd: int,
    write_fd: int,
    parent: int,
    compiled: Template,
    name: str,
    context: dict[str, Any],
    max_bytes: int,
) -> NoReturn:
    """The forked worker: render, write the outcome to the pipe, exit at once (no atexit
    handler, no buffer of the parent's flushed twice)."""
    code = 1
    try:
        os.close(read_fd)
        worker_starts(parent)  # dies with the parent; closes the workspace lock's descriptor
        gc.freeze()  # the collector leaves the parent's objects alone: no page copied for them
        _cap_memory()
        try:
            outcome: list[str] = ["ok", _render(compiled, name, context, max_bytes)]
        except DataError as exc:
            outcome = ["error", exc.message, exc.hint or ""]
        data = json.dumps(outcome, ensure_ascii=False).encode("utf-8", "surrogatepass")
        view = memoryview(data)
        while view:
            view = view[os.write(write_fd, view) :]
        code = 0
    finally:
        os._exit(code)


def _cap_memory() -> None:
    """In the worker: at most MAX_RENDER_MEMORY more address space than it inherited
    (Linux; elsewhere the step checks' peak-memory check only)."""
    try:
        fd = os.open("/proc/self/statm", os.O_RDONLY)
        try:
            pages = int(os.read(fd, 256).split()[0])
        finally:
            os.close(fd)
        limit = pages * os.sysconf("SC_PAGE_SIZE") + MAX_RENDER_MEMORY
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (OSError, ValueError, IndexError):
        return


def _reap(pid: int) -> int:
    try:
        return os.waitpid(pid, 0)[1]
    except ChildProcessError:  # reaped elsewhere (SIGCHLD ignored): its status is lost
        return 0


def _outcome(name: str, data: bytes, status: int) -> str:
    """The worker's text, or its error as a DataError."""
    try:
        outcome = json.loads(data.decode("utf-8", "surrogatepass"))
    except ValueError:
        if os.WIFSIGNALED(status):
            number = os.WTERMSIG(status)
            try:
                signame = signal.Signals(number).name
            except ValueError:
                signame = f"signal {number}"
            return _refused(name, f"the render was ended by {signame} (out of memory?)")
        return _refused(name, "the render ended without a result (out of memory?)")
    if outcome[0] == "ok":
        return str(outcome[1])
    raise DataError(str(outcome[1]), str(outcome[2]) or None)


def _refused(name: str, why: str) -> NoReturn:
    raise DataError(f"template {name}: {why}", _hint(RenderLimit()))


def _what(exc: BaseException) -> str:
    kind = type(exc).__name__
    text = " ".join(str(exc).split()).rstrip(".")
    if kind == "SecurityError":
        return f"unsafe: {text}"
    if isinstance(exc, RenderLimit):
        return text
    if isinstance(exc, RecursionError):
        return "a macro calls itself without end (maximum recursion depth exceeded)"
    if isinstance(exc, MemoryError):
        return "out of memory while rendering"
    if isinstance(exc, ArithmeticError | LookupError):
        return f"{kind}: {text}" if text else kind
    return text or kind


def _hint(exc: BaseException) -> str:
    if isinstance(exc, RenderLimit | MemoryError):
        return "a summary template should lay out the sections it is given, not compute"
    return "fix the template"


def _template_line(exc: BaseException) -> int | None:
    """The line of the template the error came from (Jinja2 names the template's code
    `<template>` in the traceback)."""
    found = None
    for frame, line in traceback.walk_tb(exc.__traceback__):
        if frame.f_code.co_filename == "<template>":
            found = line
    return found


def _generator_line(compiled: Template, stream: Any) -> int | None:
    """The template line a paused render is at: the innermost of its generators that runs
    the template's code (`yield from` chains a block's into the root's)."""
    found = None
    while stream is not None:
        frame = getattr(stream, "gi_frame", None)
        if frame is not None and frame.f_code.co_filename == "<template>":
            found = compiled.get_corresponding_lineno(frame.f_lineno)
        stream = getattr(stream, "gi_yieldfrom", None)
    return found


def render_digest(digest: Digest, template: Path, max_bytes: int = MAX_RENDER_BYTES) -> str:
    """A summary file: memcli's front matter, then the template's body."""
    return front_matter(digest) + render_template(template, digest.context(), max_bytes)
