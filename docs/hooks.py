"""mkdocs hooks: pictures of forms where a page asks for one, and no scripts in the site.

A line ``<!-- form-picture: NAME -->`` in a page becomes the picture ``images/forms/NAME.png``,
which ``docs/pictures/make_pictures.py`` takes from a real client. A name that is not in
that script's table, or whose picture has not been taken, is a warning, so ``mkdocs build
--strict`` fails. The Python files under docs/ (this one, the pictures' script and servers)
are tools of the docs, not pages: they stay out of the site.
"""

from __future__ import annotations

import importlib.util
import logging
import posixpath
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

DOCS = Path(__file__).resolve().parent
SCRIPT = DOCS / "pictures" / "make_pictures.py"
MARKER = re.compile(r"^<!-- form-picture: (\S+) -->[ \t]*$", re.MULTILINE)
log = logging.getLogger("mkdocs.hooks.form_pictures")  # under "mkdocs": --strict counts it


def _script() -> ModuleType:
    """The pictures' script, for its table (importing it needs no browser)."""
    name = "elicitkit_docs_make_pictures"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, SCRIPT)
        if spec is None or spec.loader is None:
            raise ImportError(f"Cannot load {SCRIPT}, the table of the docs' form pictures.")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up while it runs
        spec.loader.exec_module(module)
    return sys.modules[name]


def on_files(files: Any, config: Any) -> Any:
    """Leave the docs' own Python files out of the site."""
    del config
    for file in [file for file in files if file.src_uri.endswith(".py")]:
        files.remove(file)
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Replace each form-picture marker with the picture, or warn that it cannot be shown."""
    del config, files
    pictures = {picture.name: picture for picture in _script().PICTURES}
    source = page.file.src_uri

    def picture(marker: re.Match[str]) -> str:
        name = marker.group(1)
        if name not in pictures:
            log.warning(
                "%s shows the form picture '%s', which is not in the table of %s. "
                "Use one of %s, or add a row for it there and run that script.",
                source,
                name,
                SCRIPT.relative_to(DOCS.parent),
                ", ".join(pictures),
            )
            return marker.group(0)
        target = f"images/forms/{name}.png"
        if not (DOCS / target).is_file():
            log.warning(
                "%s shows the form picture '%s', but docs/%s has not been taken. "
                "Run .venv/bin/python -m docs.pictures.make_pictures %s, and commit the PNG.",
                source,
                name,
                target,
                name,
            )
            return marker.group(0)
        shown = pictures[name]
        asks = shown.asks.replace("[", "(").replace("]", ")")
        alt = f"The form “{asks}” as the MCP Inspector shows it, on MCP {shown.server.protocol}"
        relative = posixpath.relpath(target, posixpath.dirname(source) or ".")
        return f"![{alt}]({relative})"

    return MARKER.sub(picture, markdown)
