"""The docs' form pictures: what docs/hooks.py makes of a marker, and the folder it points to.

Taking the pictures needs the Inspector in Chromium (tests/interop/test_docs_pictures.py);
these check, in the quick loop, that every committed picture is one the script takes and a
whole PNG of a form's size, and that a page asking for a picture gets it, or fails the
strict build saying what to run.
"""

from __future__ import annotations

import logging
from pathlib import Path
from types import SimpleNamespace

import pytest
from docs import hooks
from docs.pictures.make_pictures import FORMS, NAMES, PICTURES

from tests.png import check_form_picture

HOOK_LOG = "mkdocs.hooks.form_pictures"


def page(src_uri: str) -> SimpleNamespace:
    return SimpleNamespace(file=SimpleNamespace(src_uri=src_uri))


def test_every_committed_picture_is_one_the_script_takes() -> None:
    # Nothing drawn by hand in the folder, and nothing of the table left untaken.
    assert sorted(path.stem for path in FORMS.glob("*")) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_every_picture_of_the_table_is_a_whole_png_of_a_form(name: str) -> None:
    # tests/interop/test_docs_pictures.py re-takes one picture per kind of server and
    # compares it with the committed one; every other row is checked here, as committed.
    check_form_picture((FORMS / f"{name}.png").read_bytes())


def test_the_table_names_each_picture_once() -> None:
    assert len(set(NAMES)) == len(PICTURES)


@pytest.mark.parametrize(
    ("source", "src"),
    [
        pytest.param("index.md", "images/forms/url-mode.png", id="top"),
        pytest.param("tutorial/stage-1.md", "../images/forms/url-mode.png", id="nested"),
    ],
)
def test_a_marker_becomes_the_picture(source: str, src: str) -> None:
    markdown = "Before.\n\n<!-- form-picture: url-mode -->\n\nAfter.\n"
    assert hooks.on_page_markdown(markdown, page(source), None, None) == (
        "Before.\n\n![The form “Sign in at the bank to link your account.” as the MCP "
        f"Inspector shows it, on MCP 2025-11-25]({src})\n\nAfter.\n"
    )


def test_a_marker_inside_a_line_is_left_alone() -> None:
    markdown = "Write `<!-- form-picture: url-mode -->` on a line of its own.\n"
    assert hooks.on_page_markdown(markdown, page("index.md"), None, None) == markdown


def test_a_picture_not_in_the_table_fails_the_strict_build(
    caplog: pytest.LogCaptureFixture,
) -> None:
    markdown = "<!-- form-picture: teapot -->\n"
    with caplog.at_level(logging.WARNING, logger=HOOK_LOG):
        assert hooks.on_page_markdown(markdown, page("index.md"), None, None) == markdown
    assert [record.getMessage() for record in caplog.records] == [
        (
            "index.md shows the form picture 'teapot', which is not in the table of "
            f"docs/pictures/make_pictures.py. Use one of {', '.join(NAMES)}, or add a row for "
            "it there and run that script."
        )
    ]


def test_a_picture_not_taken_fails_the_strict_build(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(hooks, "DOCS", tmp_path)  # a docs folder without the pictures
    markdown = "<!-- form-picture: url-mode -->\n"
    with caplog.at_level(logging.WARNING, logger=HOOK_LOG):
        assert hooks.on_page_markdown(markdown, page("url-mode.md"), None, None) == markdown
    assert [record.getMessage() for record in caplog.records] == [
        (
            "url-mode.md shows the form picture 'url-mode', but docs/images/forms/url-mode.png "
            "has not been taken. Run .venv/bin/python -m docs.pictures.make_pictures url-mode, "
            "and commit the PNG."
        )
    ]


def test_the_docs_scripts_stay_out_of_the_site() -> None:
    names = ["index.md", "hooks.py", "pictures/make_pictures.py", "images/forms/url-mode.png"]
    files = [SimpleNamespace(src_uri=name) for name in names]
    kept = hooks.on_files(files, None)
    assert [file.src_uri for file in kept] == ["index.md", "images/forms/url-mode.png"]
