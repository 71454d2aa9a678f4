"""A form at the terminal: one prompt per field, checked as the user types.

The renderer behind ``elicitkit try`` and the interactive demo. Built on prompt_toolkit:
it validates while typing (Enter is refused until the value fits, with the reason shown
under the line), shows defaults in the input as if selected (Enter keeps one, typing
replaces it, an arrow key or Backspace edits it), reads one keystroke for yes/no questions
(``n`` is "no"; declining the form is ``d``), and turns Ctrl-C and Ctrl-D into a clean
"cancel" instead of a traceback.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from prompt_toolkit import PromptSession
from prompt_toolkit.completion import WordCompleter
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.validation import ValidationError, Validator

from elicitkit._interrupt import is_interrupt
from elicitkit.cli.schema_reader import SKIP, WireField, wire_fields
from elicitkit.cli.shown_text import shown

TOOLBAR = " Enter: next field · Ctrl-C: cancel the form "
# A default is shown in the input as if selected: typing replaces it (a person typing an
# option's number after the default would otherwise get "sms2"), an arrow key edits it.
DEFAULT_TOOLBAR = " Enter: keep the default · type to replace it · ←: edit it · Ctrl-C: cancel "


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

    The first keystroke chooses: Enter or ``y`` fills the form in, ``d`` declines, ``c``
    cancels. A form of one yes/no field is answered by that keystroke alone: ``y`` yes,
    ``n`` no (Enter keeps its default). Ctrl-C or Ctrl-D at any prompt cancels the form.
    """
    schema: Mapping[str, Any] = params.get("requestedSchema", {})
    fields = wire_fields(schema)
    # Everything below that comes from the server goes through shown(): see shown_text.
    print(shown(f"\n  {params.get('message', 'The server asks:')}"))
    try:
        if len(fields) == 1 and fields[0].kind == "boolean":
            return await _yes_or_no(fields[0])
        for field in fields:
            description = field.schema.get("description")
            about = f" - {description}" if description else ""
            print(shown(f"    {field.title}{about} ({field.hint()})"))
        # No "n" here: it would read as "no", and declining is its own, named action.
        choice = await keypress(
            "  [Enter/y] fill in · [d] decline · [c] cancel ",
            {"y": "f", "d": "d", "c": "c"},
            "f",
        )
        if choice != "f":
            return _refused("decline" if choice == "d" else "cancel")
        content = await fill_fields(fields)
    except BaseException as error:
        if not (isinstance(error, EOFError) or is_interrupt(error)):
            raise
        print("\n  Cancelled: the form was closed without an answer.")
        return TerminalAnswer(types.ElicitResult(action="cancel"), interrupted=True)
    return TerminalAnswer(types.ElicitResult(action="accept", content=content))


async def _yes_or_no(field: WireField) -> TerminalAnswer:
    """A form that is one yes/no question: one keystroke answers it, or refuses the form."""
    default = field.prefill() or None
    yes, no = (
        ("[Y]es", "[n]o") if default == "y" else ("[y]es", "[N]o") if default else ("[y]es", "[n]o")
    )
    skip = " · [s]kip" if not field.required else ""
    title = shown(field.title)
    keys = {"y": "y", "n": "n", "d": "decline", "c": "cancel"}
    if not field.required:
        keys["s"] = ""
    answer = await keypress(f"  {title}? {yes} · {no}{skip} · [d]ecline · [c]ancel ", keys, default)
    if answer in ("decline", "cancel"):
        return _refused(answer)
    _echo(title, answer)
    value = field.parse(answer)
    content = {} if value is SKIP else {field.key: value}
    return TerminalAnswer(types.ElicitResult(action="accept", content=content))


def _echo(title: str, key: str) -> None:
    """Print a yes/no question's answer under it (``y``, ``n``, or ``""`` for skipped)."""
    print(f"  {title}: {'yes' if key == 'y' else 'no' if key == 'n' else '-'}")


def _refused(action: str) -> TerminalAnswer:
    result = types.ElicitResult(action="decline" if action == "decline" else "cancel")
    print(f"  You chose to {result.action}.")
    return TerminalAnswer(result)


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
        _echo(title, answer)
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
    prefill = shown(field.prefill())
    bindings = KeyBindings()
    pristine = [bool(prefill)]  # the default is untouched: the next typed character replaces it

    @bindings.add("<any>", filter=Condition(lambda: pristine[0]))
    def _replace(event: KeyPressEvent) -> None:
        pristine[0] = False
        event.current_buffer.document = Document("")
        event.current_buffer.insert_text(event.data)

    session: PromptSession[str] = PromptSession(
        shown(f"  {field.title}: "),
        validator=_FieldValidator(field),
        validate_while_typing=True,
        completer=completer,
        bottom_toolbar=DEFAULT_TOOLBAR if prefill else TOOLBAR,
        key_bindings=bindings,
    )

    def _touched(_processor: object) -> None:
        # Once the text or the cursor moves (Backspace, an arrow, a completion), the input
        # is the user's own. Judged by the buffer, not by the key: a terminal's own reports
        # (the cursor position) arrive as key presses too, before anyone types.
        buffer = session.default_buffer
        if buffer.text != prefill or buffer.cursor_position != len(prefill):
            pristine[0] = False

    session.app.key_processor.after_key_press += _touched
    # Ctrl-C at a prompt is a key (raw mode); the signal stays with run_interruptibly.
    text = await session.prompt_async(default=prefill, handle_sigint=False)
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
    return await session.prompt_async(handle_sigint=False)  # as in _ask_field
