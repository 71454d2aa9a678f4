"""Question keys: one claimer for every question of a run, form or URL, explicit or default.

A key names a question's answer on the wire (2026-07-28's ``inputRequests``, a task's) and
in the sealed state, the same in every round. Every question claims its key here, on every
era, so each is checked the same way and is unique across forms and URLs in one run:

* an explicit key must match `READABLE_KEY` ('#' and '~' stay free for the two below);
* a default key is the form's slug and how many times the run asked that form
  (``shipping_address#1``), or ``url#1``, ``url#2`` for URL questions;
* a re-ask after an invalid answer is its question's key, ``~`` and the attempt
  (``shipping_address#1~1``).

The formats are the state's: states written by earlier versions hold these very keys.
"""

from __future__ import annotations

import re

from elicitkit._lru import Lru
from elicitkit._runtime.context import READABLE_KEY, ToolRun
from elicitkit._runtime.retries import RETRY_MARK
from elicitkit.errors import FormDefinitionError

URL_STEM = "url"
"""The stem of a URL question's default key (``url#1``)."""

URL_SUBJECT = "open a page"
"""What a URL question asks for, as a malformed key's sentence names it."""


def claim(run: ToolRun, key: str | None, *, stem: str, subject: str, function: str) -> str:
    """Claim a question's key in ``run``: ``key`` checked, or the next default for ``stem``.

    Args:
        run: The call the question belongs to.
        key: The author's key, or ``None`` for the default.
        stem: The default key's stem (`form_stem`, or `URL_STEM`).
        subject: What the question asks for (the form's name), for the sentence.
        function: What the author called (``ask()``), for the sentence.

    Raises:
        FormDefinitionError: ``key`` is malformed, or already used in this run.
    """
    if key is None:
        number = run.defaults.get(stem, 0) + 1
        run.defaults[stem] = number
        key = f"{stem}#{number}"  # '#' is not allowed in explicit keys: no collision
    elif not READABLE_KEY.fullmatch(key):
        raise FormDefinitionError(
            f"Cannot use {key!r} as the key of a question to {subject}: a key is 1 to 64 "
            "letters, digits, '_', '-' or '.'. Choose a key like 'user_name'."
        )
    if key in run.keys:
        raise FormDefinitionError(
            f"Two questions in one call use the key {key!r}, so their answers could not be "
            f"told apart. Give each {function} its own key, e.g. key=f'item_{{i}}' in a loop."
        )
    run.keys.add(key)
    return key


def claim_reask(run: ToolRun, key: str, attempt: int) -> str:
    """Claim the key of re-ask number ``attempt`` of the question ``key``.

    Unique by construction: '~' is in no other key, and each attempt is claimed once.
    """
    reask = f"{key}{RETRY_MARK}{attempt}"
    run.keys.add(reask)
    return reask


def form_stem(stem: str) -> str:
    """``ShippingAddress`` -> ``shipping_address``: a form's readable default key stem."""
    slug = _SLUGS.get(stem)
    if slug is None:
        snake = _CAMEL.sub("_", stem).lower()
        slug = _SLUGS.put(stem, _NOT_WORD.sub("_", snake).strip("_")[:40] or "answer")
    return slug


# Form stem -> slug; bounded, since form types made per call may each have a new name.
_SLUGS: Lru[str, str] = Lru(1024)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_NOT_WORD = re.compile(r"[^a-z0-9]+")
