"""Question keys: one claimer for every key of a run, form or URL, explicit or default.

A key names a question's answer on the wire (2026-07-28's ``inputRequests``, a task's) and
in the sealed state, the same in every round. Every question claims its key here, on every
era, so each is checked the same way and is unique across forms and URLs in one run:

* an explicit key must match `READABLE_KEY` ('#' and '~' stay free for the two below);
* a default key is the form's slug and how many times the run asked that form
  (``shipping_address#1``), or ``url#1``, ``url#2`` for URL questions;
* a re-ask after an invalid answer is its question's key, ``~`` and the attempt
  (``shipping_address#1~1``).

A durable step's key is claimed here too, in a namespace of its own (a step and a question
may share a key: one names an outcome, the other an answer).

The formats are the state's: states written by earlier versions hold these very keys.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from elicitkit._lru import Lru
from elicitkit._runtime.retries import RETRY_MARK
from elicitkit.errors import FormDefinitionError, StepError

# What an explicit key of a question or a step may be: it names the answer or the outcome
# on the wire and in the store, the same in every round. '#' and '~' stay free for the
# default keys (``address#1``) and re-asks (``address#1~1``).
READABLE_KEY = re.compile(r"[A-Za-z0-9_.\-]{1,64}")

URL_STEM = "url"
"""The stem of a URL question's default key (``url#1``)."""

URL_SUBJECT = "open a page"
"""What a URL question asks for, as a malformed key's sentence names it."""


# Plain constructors for the fields: ``set[str]()`` (a generic alias) costs ten times
# ``set()``, and every round of every call makes a book.
def _new_set() -> set[Any]:
    return set()


def _new_dict() -> dict[Any, Any]:
    return {}


@dataclass
class KeyBook:
    """The keys one run has claimed, and which of its questions went to the model.

    Attributes:
        questions: Every question key claimed so far, form or URL, re-asks included.
        defaults: How many questions without an explicit key each stem has asked so far:
            the next default key's number.
        steps: The durable step keys claimed so far.
        for_the_model: The keys of the questions handed to the model (their answers come
            through ``answer_form``): carried in the ticket between rounds.
    """

    questions: set[str] = field(default_factory=_new_set)
    defaults: dict[str, int] = field(default_factory=_new_dict)
    steps: set[str] = field(default_factory=_new_set)
    for_the_model: set[str] = field(default_factory=_new_set)

    def claim(self, key: str | None, *, stem: str, subject: str, function: str) -> str:
        """Claim a question's key: ``key`` checked, or the next default for ``stem``.

        Args:
            key: The author's key, or ``None`` for the default.
            stem: The default key's stem (`form_stem`, or `URL_STEM`).
            subject: What the question asks for (the form's name), for the sentence.
            function: What the author called (``ask()``), for the sentence.

        Raises:
            FormDefinitionError: ``key`` is malformed, or already used in this run.
        """
        if key is None:
            number = self.defaults.get(stem, 0) + 1
            self.defaults[stem] = number
            key = f"{stem}#{number}"  # '#' is not allowed in explicit keys: no collision
        elif not READABLE_KEY.fullmatch(key):
            raise FormDefinitionError(
                f"Cannot use {key!r} as the key of a question to {subject}: a key is 1 to 64 "
                "letters, digits, '_', '-' or '.'. Choose a key like 'user_name'."
            )
        if key in self.questions:
            raise FormDefinitionError(
                f"Two questions in one call use the key {key!r}, so their answers could not "
                f"be told apart. Give each {function} its own key, e.g. key=f'item_{{i}}' in "
                "a loop."
            )
        self.questions.add(key)
        return key

    def claim_reask(self, key: str, attempt: int) -> str:
        """Claim the key of re-ask number ``attempt`` of the question ``key``.

        Unique by construction: '~' is in no other key, and each attempt is claimed once.
        A re-ask of a question the model answers is the model's too.
        """
        reask = f"{key}{RETRY_MARK}{attempt}"
        self.questions.add(reask)
        if key in self.for_the_model:
            self.for_the_model.add(reask)
        return reask

    def claim_step(self, key: str) -> None:
        """Claim a durable step's key.

        Raises:
            StepError: ``key`` is malformed, or another step of this run uses it.
        """
        if not READABLE_KEY.fullmatch(key):
            raise StepError(
                f"Cannot use {key!r} as the key of a step: a key is 1 to 64 letters, digits, "
                "'_', '-' or '.', the same in every round. Choose a key like 'quote'."
            )
        if key in self.steps:
            raise StepError(
                f"Two steps in one call use the key {key!r}, so their recorded outcomes could "
                "not be told apart. Give each step() its own key, e.g. key=f'charge_{i}' in "
                "a loop."
            )
        self.steps.add(key)


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
