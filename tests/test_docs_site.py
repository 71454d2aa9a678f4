"""The docs site stays whole: every page in the nav, every public name in the API reference,
and the type-mapping page's field table equal to what the code emits.

``mkdocs build --strict`` (run by .ci/run) catches broken links and nav entries that point
nowhere; these tests catch what it does not: pages left out of the nav, public names left
out of the reference, and a table that drifted from the code.
"""

from __future__ import annotations

import json
import re
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any

import pytest
from pydantic import AnyUrl, EmailStr, HttpUrl

import elicitkit
import elicitkit.errors
import elicitkit.protocol
import elicitkit.replay
import elicitkit.stores
import elicitkit.testing
import elicitkit.url
from elicitkit import Email, Uri, requested_schema
from elicitkit.protocol import PROTOCOL_VERSIONS

ROOT = Path(__file__).parents[1]
DOCS = ROOT / "docs"
NAV_ENTRY = re.compile(r"^\s*- [^:\n]+: (\S+\.md)\s*$", re.MULTILINE)


def test_every_page_is_in_the_nav() -> None:
    nav = NAV_ENTRY.findall((ROOT / "mkdocs.yml").read_text())
    pages = sorted(str(page.relative_to(DOCS)) for page in DOCS.rglob("*.md"))
    assert sorted(nav) == pages


# The public modules the API reference documents besides the root (elicitkit.testing also has
# a guide of its own, testing.md).
PUBLIC_MODULES = [
    elicitkit.errors,
    elicitkit.protocol,
    elicitkit.replay,
    elicitkit.stores,
    elicitkit.testing,
    elicitkit.url,
]
# Submodules documented whole, as modules (the pytest plugin's fixtures and marker).
DOCUMENTED_MODULES = {"elicitkit.testing.pytest_plugin"}


def _listed(prefix: str) -> list[str]:
    """The names the API reference documents directly under ``prefix``, in page order."""
    pattern = rf"^::: {re.escape(prefix)}\.(\w+)$"
    return re.findall(pattern, (DOCS / "api.md").read_text(), re.MULTILINE)


def test_the_api_reference_lists_every_public_name() -> None:
    listed = _listed("elicitkit")
    assert sorted(listed) == sorted(elicitkit.__all__)


@pytest.mark.parametrize("module", PUBLIC_MODULES, ids=lambda module: module.__name__)
def test_the_api_reference_lists_every_public_name_of_each_public_module(module: Any) -> None:
    # A name is documented under its module, or once at the root when the root exports the
    # same object (elicitkit.ElicitError is elicitkit.errors.ElicitError); never both.
    under_module = [
        name
        for name in _listed(module.__name__)
        if f"{module.__name__}.{name}" not in DOCUMENTED_MODULES
    ]
    at_root = [
        name
        for name in module.__all__
        if name in elicitkit.__all__ and getattr(elicitkit, name) is getattr(module, name)
    ]
    assert sorted(under_module + at_root) == sorted(module.__all__)


def test_the_api_reference_documents_only_public_modules() -> None:
    targets = re.findall(r"^::: (\S+)$", (DOCS / "api.md").read_text(), re.MULTILINE)
    modules = {target.rsplit(".", 1)[0] for target in targets}
    assert modules == {"elicitkit", *(module.__name__ for module in PUBLIC_MODULES)}


def _package_map() -> tuple[str, list[str]]:
    """How-it-works' package map: the text before it, and every module it lists, by path."""
    page = (DOCS / "how-it-works.md").read_text()
    section = page.split("## The package, for contributors\n", 1)[1]
    before, block = section.split("```text\n", 1)
    listed: list[str] = []
    folders: list[str] = []
    for line in block.split("```", 1)[0].splitlines():
        name = line.split()[0]
        depth = (len(line) - len(line.lstrip())) // 2
        folders[depth:] = []
        if name.endswith("/"):
            folders.append(name.rstrip("/"))
        else:
            listed.append("/".join([*folders, name]))
    return before, listed


def test_the_package_map_lists_every_module_once() -> None:
    _, listed = _package_map()
    modules = [str(path.relative_to(ROOT)) for path in (ROOT / "elicitkit").rglob("*.py")]
    assert len(listed) == len(set(listed))
    assert sorted(listed) == sorted(modules)


def test_the_package_map_counts_match_the_code() -> None:
    before, listed = _package_map()
    page = (DOCS / "how-it-works.md").read_text()
    assert f"the folder tree is the architecture: {len(listed)} modules" in before.lower()
    assert f"__init__.py             the {len(elicitkit.__all__)} names a tool author" in page


def test_the_changelog_page_includes_the_changelog() -> None:
    assert (DOCS / "changelog.md").read_text() == '--8<-- "CHANGELOG.md"\n'


# The names the Python column of the field-type table may use.
TABLE_NAMES: dict[str, Any] = {
    "Annotated": Annotated,
    "AnyUrl": AnyUrl,
    "Decimal": Decimal,
    "Email": Email,
    "EmailStr": EmailStr,
    "HttpUrl": HttpUrl,
    "Uri": Uri,
    "bool": bool,
    "date": date,
    "datetime": datetime,
    "float": float,
    "int": int,
    "str": str,
}


def _field_type_rows() -> list[tuple[str, dict[str, Any]]]:
    """(Python annotation, JSON the row promises) for each row whose wire cell is JSON."""
    page = (DOCS / "type-mapping.md").read_text()
    section = page.split("## Field types\n", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
        if len(cells) != 3 or not cells[1].startswith("`"):
            continue  # not a row, or a wire cell in words (choices), shown by the page's examples
        fragment = cells[1].strip("`")
        promised = json.loads(fragment if fragment.startswith("{") else "{" + fragment + "}")
        names = re.findall(r"`([^`]+)`", cells[0])
        rows.extend((name, promised) for name in names if name in TABLE_NAMES or "[" in name)
    return rows


def test_the_field_type_table_is_read_whole() -> None:
    # Twelve annotations over ten rows: a reformatted table must not silently check less.
    assert len(_field_type_rows()) == 12


@pytest.mark.parametrize("protocol", PROTOCOL_VERSIONS)
@pytest.mark.parametrize(
    ("annotation", "promised"), _field_type_rows(), ids=[row[0] for row in _field_type_rows()]
)
def test_the_field_type_table_matches_the_code(
    annotation: str, promised: dict[str, Any], protocol: str
) -> None:
    field_type = eval(annotation, dict(TABLE_NAMES))  # noqa: S307  (our own docs, fixed names)
    emitted = requested_schema(field_type, protocol=protocol)["properties"]["value"]
    assert {key: emitted.get(key) for key in promised} == promised
