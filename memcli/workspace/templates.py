"""Finding and rendering summary templates (SPEC §8).

A template `NAME` is the file `NAME.md.j2` in `<workspace>/templates/`, then in the
configured `templates_dir`, then among the templates shipped in the package. It is
rendered in Jinja2's sandbox: no attribute of Python's internals is reachable, and an
unknown name is an error. Any error names the template file and its line (exit 3).
"""

from __future__ import annotations

import traceback
from pathlib import Path
from typing import Any

from memcli.core.summarize import Digest, front_matter
from memcli.errors import DataError
from memcli.workspace.files import read_config_text

SHIPPED = Path(__file__).resolve().parent.parent / "templates"
SUFFIX = ".md.j2"
NAMES = ("weekly-digest", "session-summary", "compaction-summary")
MAX_TEMPLATE_BYTES = 1 << 20


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
    shipped = ", ".join(NAMES)
    looked = ", ".join(str(p) for p in places)
    raise DataError(f"no template {name!r} (looked in {looked})", f"shipped templates: {shipped}")


_compiled: dict[str, Any] = {}  # template source -> compiled template (gc renders one per week)


def render_template(path: Path, context: dict[str, Any]) -> str:
    """The template's text with `context`, in Jinja2's sandbox."""
    from jinja2 import StrictUndefined, TemplateError, TemplateSyntaxError
    from jinja2.sandbox import SandboxedEnvironment

    name = str(path)
    source = read_config_text(path, MAX_TEMPLATE_BYTES)
    try:
        compiled = _compiled.get(source)
        if compiled is None:
            env = SandboxedEnvironment(
                undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True
            )
            compiled = _compiled[source] = env.from_string(source)
        text = compiled.render(**context)
    except TemplateSyntaxError as exc:
        raise DataError(f"template {name}, line {exc.lineno}: {exc.message}", "fix the template") from None
    except (TemplateError, TypeError, ValueError, AttributeError, KeyError, IndexError) as exc:
        line = _template_line(exc)
        where = f", line {line}" if line else ""
        what = "unsafe: " if type(exc).__name__ == "SecurityError" else ""
        raise DataError(f"template {name}{where}: {what}{exc}", "fix the template") from None
    return text.rstrip("\n") + "\n"


def _template_line(exc: BaseException) -> int | None:
    """The line of the template the error came from (Jinja2 names the template's code
    `<template>` in the traceback)."""
    found = None
    for frame, line in traceback.walk_tb(exc.__traceback__):
        if frame.f_code.co_filename == "<template>":
            found = line
    return found


def render_digest(digest: Digest, template: Path) -> str:
    """A summary file: memcli's front matter, then the template's body."""
    return front_matter(digest) + render_template(template, digest.context())
