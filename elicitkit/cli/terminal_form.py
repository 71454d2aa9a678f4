"""A form at the terminal: one prompt per field, checked as the user types.

The renderer behind ``elicitkit try`` and the interactive demo. Built on prompt_toolkit:
it validates while typing (Enter is refused until the value fits, with the reason shown
under the line), prefills defaults, reads one keystroke for yes/no questions, and turns
Ctrl-C and Ctrl-D into a clean "cancel" instead of a traceback.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from prompt_toolkit import PromptSession
from prompt_toolkit.completion import WordCompleter
from prompt_toolkit.document import Document
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.validation import ValidationError, Validator

from elicitkit.cli.schema_reader import SKIP, WireField, wire_fields
from elicitkit.cli.shown_text import shown

TOOLBAR = " Enter: next field · Ctrl-C: cancel the form "


class _FieldValidator(Validator):
    def __init__(self, field: WireField) -> None:
        self._field = field

    def validate(self, document: Document) -> None:
        try:
            self._field.parse(document.text)
        except ValueError as problem:
            raise ValidationError(len(document.text), shown(problem)) from None


@dataclass(frozen=True)
class TerminalAnswer:
    """The user's answer to one form.

    Attributes:
        result: What the client sends back.
        interrupted: The user closed the form with Ctrl-C or Ctrl-D (the result is a
            cancel); a program may take that as "stop".
    """

    result: types.ElicitResult
    interrupted: bool = False


async def fill_in(params: Mapping[str, Any]) -> TerminalAnswer:
    """Show a form request at the terminal and return the user's answer.

    The first keystroke chooses: Enter or ``y`` fills the form in, ``n`` declines, ``c``
    cancels. Ctrl-C or Ctrl-D at any prompt cancels the form.
    """
    schema: Mapping[str, Any] = params.get("requestedSchema", {})
    fields = wire_fields(schema)
    # Everything below that comes from the server goes through shown(): see shown_text.
    print(shown(f"\n  {params.get('message', 'The server asks:')}"))
    for field in fields:
        description = field.schema.get("description")
        about = f" - {description}" if description else ""
        print(shown(f"    {field.title}{about} ({field.hint()})"))
    try:
        choice = await keypress(
            "  [Enter/y] fill in · [n] decline · [c] cancel ", {"y": "y", "n": "n", "c": "c"}, "y"
        )
        if choice != "y":
            result = types.ElicitResult(action="decline" if choice == "n" else "cancel")
            print(f"  You chose to {result.action}.")
            return TerminalAnswer(result)
        content = await fill_fields(fields)
    except (KeyboardInterrupt, EOFError):
        print("\n  Cancelled: the form was closed without an answer.")
        return TerminalAnswer(types.ElicitResult(action="cancel"), interrupted=True)
    return TerminalAnswer(types.ElicitResult(action="accept", content=content))


async def fill_fields(fields: list[WireField]) -> dict[str, Any]:
    """Ask for each field in turn; return the answers by key (skipped optionals left out).

    Raises:
        KeyboardInterrupt: Ctrl-C at a prompt.
        EOFError: Ctrl-D at a prompt.
    """
    content: dict[str, Any] = {}
    for field in fields:
        value = await _ask_field(field)
        if value is not SKIP:
            content[field.key] = value
    return content


async def _ask_field(field: WireField) -> Any:
    if field.kind == "boolean":
        default = field.prefill() or None
        keys = {"y": "y", "n": "n"}
        if not field.required:
            keys["s"] = ""
        choices = "[Y/n]" if default == "y" else "[y/N]" if default == "n" else "[y/n]"
        skip = " [s]kip" if not field.required else ""
        title = shown(field.title)
        answer = await keypress(f"  {title}? {choices}{skip} ", keys, default)
        print(f"  {title}: {'yes' if answer == 'y' else 'no' if answer == 'n' else '-'}")
        return field.parse(answer)
    if field.kind in ("choice", "multi"):
        for number, (value, label) in enumerate(field.options, 1):
            option = label if label == value else f"{label} ({value})"
            print(shown(f"      {number}) {option}"))
    # prompt_toolkit draws the prompt, the completion menu and the prefilled default itself,
    # so each gets the shown() text (a completed or prefilled option is matched back to its
    # value by WireField.parse).
    completer = (
        WordCompleter([shown(value) for value, _ in field.options], ignore_case=True)
        if field.options
        else None
    )
    session: PromptSession[str] = PromptSession(
        shown(f"  {field.title}: "),
        validator=_FieldValidator(field),
        validate_while_typing=True,
        completer=completer,
        bottom_toolbar=TOOLBAR,
    )
    text = await session.prompt_async(default=shown(field.prefill()))
    return field.parse(text)


async def keypress(message: str, keys: Mapping[str, str], default: str | None) -> str:
    """Read one keystroke: a key of ``keys`` (or Enter, for ``default``) ends the prompt.

    Raises:
        KeyboardInterrupt: Ctrl-C.
        EOFError: Ctrl-D.
    """
    bindings = KeyBindings()

    def answer_with(value: str) -> Any:
        def handler(event: KeyPressEvent) -> None:
            event.app.exit(result=value)

        return handler

    for key, value in keys.items():
        bindings.add(key)(answer_with(value))
        bindings.add(key.upper())(answer_with(value))
    if default is not None:
        bindings.add("enter")(answer_with(default))

    @bindings.add("enter", filter=default is None)
    @bindings.add("<any>")
    def _ignore(_event: KeyPressEvent) -> None:
        """Every other key does nothing: one keystroke, no typing."""

    session: PromptSession[str] = PromptSession(message, key_bindings=bindings)
    return await session.prompt_async()
