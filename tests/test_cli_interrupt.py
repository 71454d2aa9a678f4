"""Ctrl-C at any moment of the command line leaves with one line, never a traceback.

The first moment, while ``python -m elicitkit`` imports the package, comes before any of the
command line's code: `elicitkit._interrupt` covers it, for the CLI's process only. It is
checked in a fresh interpreter that raises the interrupt itself (deterministic), and with a
real Ctrl-C through a pseudo-terminal at several moments of the demo's start. A Ctrl-C in
a wrapper (pydantic-core's ``SchemaError``, an exception group, a cause or context chain)
is still one: `is_interrupt` is checked on wrappers built here, and on a real ``SchemaError``
of an interrupted validator build.
"""

from __future__ import annotations

import io
import os
import signal
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest
from pydantic_core import SchemaError, SchemaValidator, core_schema

from elicitkit._compat import BaseExceptionGroup
from elicitkit._interrupt import is_interrupt
from tests.python_child import RunPython

REPO = Path(__file__).resolve().parent.parent


class _Interrupting:
    """A literal value: pydantic-core calls its repr() while it builds the validator.

    The Ctrl-C raised there is one a signal would raise at that point of the build.
    """

    def __repr__(self) -> str:
        raise KeyboardInterrupt


class _Failing:
    def __repr__(self) -> str:
        raise ValueError("no repr")


def _failed_build(schema: core_schema.CoreSchema) -> SchemaError:
    with pytest.raises(SchemaError) as raised:
        SchemaValidator(schema)
    return raised.value


def _caused_by(inner: BaseException) -> RuntimeError:
    outer = RuntimeError("while cleaning up")
    outer.__cause__ = inner
    return outer


def _during(inner: BaseException) -> RuntimeError:
    outer = RuntimeError("while handling it")
    outer.__context__ = inner
    return outer


def test_pydantic_core_reports_an_interrupted_build_in_its_message_only() -> None:
    # What `is_interrupt` relies on: no cause, no context, the interrupt's name on a line.
    error = _failed_build(core_schema.literal_schema([_Interrupting()]))
    assert str(error) == 'Error building "literal" validator:\n  KeyboardInterrupt: '
    assert error.__cause__ is None
    assert error.__context__ is None


@pytest.mark.parametrize(
    "error",
    [
        pytest.param(KeyboardInterrupt(), id="bare"),
        pytest.param(
            _failed_build(core_schema.literal_schema([_Interrupting()])),
            id="schema-error",
        ),
        pytest.param(
            _failed_build(
                core_schema.typed_dict_schema(
                    {
                        "a": core_schema.typed_dict_field(
                            core_schema.union_schema(
                                [
                                    core_schema.int_schema(),
                                    core_schema.literal_schema([_Interrupting()]),
                                ]
                            )
                        )
                    }
                )
            ),
            id="schema-error-nested-builders",
        ),
        pytest.param(_caused_by(KeyboardInterrupt()), id="cause"),
        pytest.param(_during(KeyboardInterrupt()), id="context"),
        pytest.param(_during(_caused_by(KeyboardInterrupt())), id="context-of-cause"),
        pytest.param(
            BaseExceptionGroup("tasks", [ValueError("one"), KeyboardInterrupt()]), id="group"
        ),
        pytest.param(
            BaseExceptionGroup(
                "outer", [BaseExceptionGroup("inner", [_during(KeyboardInterrupt())])]
            ),
            id="nested-groups",
        ),
    ],
)
def test_an_interrupt_inside_a_wrapper_is_an_interrupt(error: BaseException) -> None:
    assert is_interrupt(error)


def _cycle() -> RuntimeError:
    first, second = RuntimeError("first"), RuntimeError("second")
    first.__context__, second.__context__ = second, first
    return first


def _chain(length: int, bottom: BaseException) -> BaseException:
    error = bottom
    for _ in range(length):
        error = _during(error)
    return error


@pytest.mark.parametrize(
    "error",
    [
        pytest.param(RuntimeError("boom"), id="plain"),
        pytest.param(
            _failed_build(core_schema.literal_schema([_Failing()])),
            id="schema-error-of-another-error",
        ),
        pytest.param(SchemaError("the field says KeyboardInterrupt: inline"), id="mention"),
        pytest.param(BaseExceptionGroup("tasks", [ValueError("a"), OSError("b")]), id="group"),
        pytest.param(_cycle(), id="cycle"),
        # Bounded: a Ctrl-C is never this deep, and a runaway chain is not read to its end.
        pytest.param(_chain(100, KeyboardInterrupt()), id="beyond-the-bound"),
    ],
)
def test_other_errors_are_not_interrupts(error: BaseException) -> None:
    assert not is_interrupt(error)


def test_an_interrupt_within_the_bound_is_found() -> None:
    assert is_interrupt(_chain(50, KeyboardInterrupt()))


def test_an_interrupt_wrapped_while_the_cli_imports_is_one_line(run_python: RunPython) -> None:
    # The CI failure: the Ctrl-C landed while pydantic-core built a validator at import.
    done = run_python(
        """
        import sys
        sys.orig_argv = [sys.executable, "-m", "elicitkit", "demo"]
        import elicitkit
        from pydantic_core import SchemaValidator, core_schema

        class Interrupting:
            def __repr__(self):
                raise KeyboardInterrupt

        SchemaValidator(core_schema.literal_schema([Interrupting()]))
        """
    )
    assert done.stderr == "\nInterrupted.\n"
    assert done.returncode == -signal.SIGINT  # as for a bare Ctrl-C: the shell sees one


@pytest.mark.parametrize(
    "started",
    [
        # What `python -m elicitkit demo` looks like to the package while it imports.
        pytest.param(
            'sys.orig_argv = [sys.executable, "-X", "utf8", "-m", "elicitkit", "demo"]',
            id="python-m",
        ),
        # The console script: `from elicitkit.cli.main import main` in bin/elicitkit.
        pytest.param(
            'sys.orig_argv = [sys.executable, "/venv/bin/elicitkit", "demo"]; '
            'sys.argv = ["/venv/bin/elicitkit", "demo"]',
            id="console-script",
        ),
    ],
)
def test_an_interrupt_while_the_cli_imports_the_package_is_one_line(
    started: str, run_python: RunPython
) -> None:
    done = run_python(
        f"""
        import sys
        {started}
        import elicitkit
        raise KeyboardInterrupt
        """
    )
    assert done.stderr == "\nInterrupted.\n"
    assert done.returncode == -signal.SIGINT  # Python still ends as killed by the Ctrl-C


def test_a_program_that_imports_elicitkit_keeps_its_own_traceback(run_python: RunPython) -> None:
    done = run_python(
        """
        import elicitkit
        raise KeyboardInterrupt
        """
    )
    assert "Traceback (most recent call last):" in done.stderr
    assert done.stderr.rstrip().endswith("KeyboardInterrupt")


def test_other_errors_of_the_cli_keep_their_traceback(run_python: RunPython) -> None:
    done = run_python(
        """
        import sys
        sys.orig_argv = [sys.executable, "-m", "elicitkit", "demo"]
        import elicitkit
        raise RuntimeError("boom")
        """
    )
    assert "Traceback (most recent call last):" in done.stderr
    assert done.stderr.rstrip().endswith("RuntimeError: boom")


def _interrupts_as_at_a_terminal() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture
def spawned(starts_processes: None) -> Iterator[list[pexpect.spawn]]:
    children: list[pexpect.spawn] = []
    yield children
    for child in children:
        if child.isalive():
            child.terminate(force=True)


def _wait_until_it_imports_pydantic_core(child: pexpect.spawn) -> None:
    """Wait until the child has loaded pydantic-core's extension: the package is importing.

    Before that point the interpreter is still starting (site, runpy), where a Ctrl-C is
    Python's to report, not elicitkit's; from it on, every moment must give one line. The
    child's memory map says so without a hook in the command line.
    """
    maps = Path(f"/proc/{child.pid}/maps")
    deadline = time.monotonic() + 30
    while "_pydantic_core" not in maps.read_text(encoding="utf-8"):
        assert child.isalive(), "the demo exited before it imported pydantic-core"
        assert time.monotonic() < deadline, "the demo did not import pydantic-core in 30 s"
        time.sleep(0.005)


def _ends(child: pexpect.spawn) -> None:
    """Wait for the child to exit; if it does not, fail with all it printed (not 100 chars)."""
    try:
        child.expect(pexpect.EOF)
    except pexpect.TIMEOUT:
        pytest.fail(f"the demo went on after the Ctrl-C:\n{child.logfile_read.getvalue()}")
    child.close()


# Seconds after the package starts importing pydantic: in the package's import, in the
# command line's (the SDK client), while the server starts, and at the first form. The
# moments only spread the Ctrl-Cs out: wherever one lands, the test passes.
@pytest.mark.parametrize("after", [0.0, 0.1, 0.3, 0.6, 1.2, 2.5])
def test_ctrl_c_during_the_demos_start_is_one_line(
    spawned: list[pexpect.spawn], after: float
) -> None:
    child = pexpect.spawn(
        sys.executable,
        ["-m", "elicitkit", "demo"],
        cwd=str(REPO),
        env={**os.environ, "TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1"},
        encoding="utf-8",
        timeout=30,
        dimensions=(50, 200),
        # As at a terminal: a runner started in the background (CI) ignores SIGINT, and a
        # child inherits that, so Ctrl-C during the import would be lost, not caught.
        preexec_fn=_interrupts_as_at_a_terminal,
    )
    child.logfile_read = io.StringIO()
    spawned.append(child)
    _wait_until_it_imports_pydantic_core(child)
    time.sleep(after)
    child.sendintr()
    _ends(child)
    transcript = child.logfile_read.getvalue()
    assert "Traceback" not in transcript
    assert "KeyboardInterrupt" not in transcript
    # One line says so, whichever moment it was: the import, the command, a form.
    said = [
        line for line in transcript.splitlines() if "Interrupted" in line or "Cancelled" in line
    ]
    assert len(said) == 1, transcript
    # 130 (the shell's number for Ctrl-C), killed by SIGINT (the import), or 0 (a form
    # cancelled, which is an answer: the demo ends normally).
    assert child.exitstatus in (0, 130) or child.signalstatus == signal.SIGINT, transcript


# The demo's own moments, each with a Ctrl-C the process sends itself there (no clock): the
# signal is always run_interruptibly's, in cooked mode, whoever else was about to take it.
_MOMENTS = {
    # The main task, before the server's process exists.
    "server-starting": """
        original = demo.Client.__aenter__
        async def enter(self):
            interrupt()
            return await original(self)
        demo.Client.__aenter__ = enter
    """,
    # The elicitation callback's task, the form printed, before its prompt starts.
    "form-drawn": """
        before_the_prompt(interrupt)
    """,
    # Inside prompt_toolkit's start, before raw mode: where it used to install its handler.
    "prompt-starting": """
        from prompt_toolkit.application import Application
        original = Application.reset
        def reset(self):
            interrupt()
            return original(self)
        Application.reset = reset
    """,
    # While the command line still loads, inside a __del__: its KeyboardInterrupt dropped.
    "dropped-while-loading": """
        Dropped()
    """,
    # In the loop, inside a __del__, as the form is about to be drawn.
    "dropped-at-the-form": """
        before_the_prompt(Dropped)
    """,
    # The answer given (by the script, not at a prompt), the main task waiting for the
    # tool's result.
    "answer-sent": """
        answer_by_script()
        original = demo._show_and_answer
        async def show_and_answer(*args, **kwargs):
            result = await original(*args, **kwargs)
            interrupt()
            return result
        demo._show_and_answer = show_and_answer
    """,
    # 2026-07-28's rounds, the first era's forms answered by the script.
    "second-era": """
        answer_by_script()
        original = demo._rounds
        async def rounds(*args, **kwargs):
            interrupt()
            return await original(*args, **kwargs)
        demo._rounds = rounds
    """,
}


@pytest.mark.parametrize("moment", list(_MOMENTS))
def test_ctrl_c_at_each_moment_of_the_demo_stops_it_in_one_line(
    spawned: list[pexpect.spawn], moment: str
) -> None:
    hook = textwrap.indent(textwrap.dedent(_MOMENTS[moment]).strip(), "    ")
    script = f"""
import os, signal, sys
sys.argv = ["elicitkit", "demo"]  # as the console script: the package takes SIGINT as it starts
from elicitkit.cli import demo
from elicitkit.cli.main import main

def interrupt():
    os.kill(os.getpid(), signal.SIGINT)  # as a Ctrl-C in cooked mode: SIGINT, now

class Dropped:
    # Python runs a signal's handler in whatever code runs, a __del__ too, and drops what
    # it raises there ("Exception ignored in ..."): the Ctrl-C's KeyboardInterrupt is lost.
    def __del__(self):
        interrupt()

def before_the_prompt(act):
    # The elicitation callback's task, the form printed, its first prompt not yet started.
    import elicitkit.cli.terminal_form as forms
    original = forms.keypress
    async def keypress(*args, **kwargs):
        act()
        return await original(*args, **kwargs)
    forms.keypress = keypress

def answer_by_script():
    async def scripted(self, params):
        return await demo._scripted(params)
    demo._Person.answer = scripted

def install():
{hook}

install()
sys.exit(main(sys.argv[1:]))
"""
    child = pexpect.spawn(
        sys.executable,
        ["-c", script],
        cwd=str(REPO),
        env={**os.environ, "TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1"},
        encoding="utf-8",
        timeout=30,
        dimensions=(50, 200),
        preexec_fn=_interrupts_as_at_a_terminal,
    )
    child.logfile_read = io.StringIO()
    spawned.append(child)
    _ends(child)
    transcript = child.logfile_read.getvalue()
    assert "Traceback" not in transcript
    said = [line for line in transcript.splitlines() if "Interrupted" in line]
    assert said == ["Interrupted: the demo stopped."], transcript
    assert child.exitstatus == 130, transcript
