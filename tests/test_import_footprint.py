"""What ``import elicitkit`` loads: not msgspec, which only Struct authors need.

Each check runs in a fresh interpreter, since this test process has long since imported
msgspec through other tests. A Struct form still works when msgspec is imported after
elicitkit: the compiler looks msgspec up when it meets a type, not when it is imported.
"""

from __future__ import annotations

from tests.python_child import RunPython


def test_import_elicitkit_does_not_import_msgspec(run_python: RunPython) -> None:
    done = run_python("import elicitkit, sys; assert 'msgspec' not in sys.modules")
    assert done.returncode == 0, done.stderr


def test_a_struct_declared_after_import_elicitkit_is_a_form(run_python: RunPython) -> None:
    done = run_python(
        """
        from typing import Annotated

        import elicitkit
        import msgspec

        class Rating(msgspec.Struct):
            stars: Annotated[int, msgspec.Meta(ge=1, le=5, title="Stars")]
            note: str = ""

        schema = elicitkit.requested_schema(Rating)
        assert schema["properties"]["stars"] == {
            "type": "integer", "title": "Stars", "minimum": 1, "maximum": 5
        }, schema
        assert schema["required"] == ["stars"], schema
        assert elicitkit.parse_content(Rating, {"stars": 4}) == Rating(stars=4, note="")
        """
    )
    assert done.returncode == 0, done.stderr


def test_jsonschema_waits_for_a_listing_for_the_model(run_python: RunPython) -> None:
    # The listing's output-schema check imports jsonschema when a question goes to the
    # model, not on import nor on a call answered with a form. The tool declares no output
    # schema, so the official client's own check (which imports it) stays out of the way.
    done = run_python(
        """
        import sys
        from dataclasses import dataclass

        import anyio
        import elicitkit.integrations.fastmcp
        from mcp import Client
        from mcp.server.mcpserver import MCPServer

        from elicitkit import ask, install

        @dataclass
        class Note:
            text: str

        server = install(MCPServer("notes"), on_unsupported="ask_model")

        @server.tool(structured_output=False)
        async def note() -> str:
            return (await ask(Note)).unwrap().text

        async def answer(context, params):
            from mcp_types import ElicitResult
            return ElicitResult(action="accept", content={"text": "hi"})

        async def main():
            assert "jsonschema" not in sys.modules
            async with Client(server, elicitation_callback=answer) as client:
                result = await client.call_tool("note", {})
            assert result.content[0].text == "hi", result
            assert "jsonschema" not in sys.modules, "a form's call loaded jsonschema"

        anyio.run(main)
        """
    )
    assert done.returncode == 0, done.stderr


def test_docket_waits_for_the_first_task(run_python: RunPython) -> None:
    # Docket (the tasks extra: about 28 packages, 400 ms) loads when a task's first leg is
    # queued: not on import, not on install(), not on a call that never goes async.
    done = run_python(
        """
        import sys

        import anyio
        from mcp import Client
        from mcp.server.mcpserver import MCPServer

        from elicitkit import go_async, install
        from elicitkit.testing._task_wire import CreatedTask, TasksExtension, get_task

        server = install(MCPServer("reports"))

        @server.tool()
        async def report(long: bool) -> str:
            if long:
                await go_async("Writing")
            return "written"

        async def main():
            assert "docket" not in sys.modules
            async with Client(server, extensions=[TasksExtension()]) as client:
                result = await client.call_tool("report", {"long": False})
                assert result.content[0].text == "written", result
                assert "docket" not in sys.modules, "a call that never went async loaded it"
                created = await client.session.call_tool(
                    "report", {"long": True}, allow_claimed=True
                )
                assert isinstance(created, CreatedTask), created
                assert "docket" in sys.modules
                with anyio.fail_after(10):
                    while (await get_task(client, created.task_id))["status"] != "completed":
                        await anyio.sleep(0.02)

        anyio.run(main)
        """
    )
    assert done.returncode == 0, done.stderr


def test_without_docket_go_async_goes_on_in_the_call(run_python: RunPython) -> None:
    # The tasks extra not installed: no task is offered, go_async() returns False, and
    # required=True says which extra to install.
    done = run_python(
        """
        import sys

        sys.modules["docket"] = None  # as if pydocket were not installed

        import anyio
        from mcp import Client
        from mcp.server.mcpserver import MCPServer

        from elicitkit import go_async, install
        from elicitkit.testing._task_wire import TasksExtension

        server = install(MCPServer("reports"))

        @server.tool()
        async def report(required: bool) -> str:
            went = await go_async("Writing", required=required)
            return f"written, as a task: {went}"

        async def main():
            async with Client(server, extensions=[TasksExtension()]) as client:
                found = await client.session.discover()
                assert "io.modelcontextprotocol/tasks" not in (
                    found.capabilities.extensions or {}
                ), found
                result = await client.call_tool("report", {"required": False})
                assert result.content[0].text == "written, as a task: False", result
                refused = await client.call_tool("report", {"required": True})
                assert refused.is_error, refused
                print(refused.content[0].text)

        anyio.run(main)
        """
    )
    assert done.returncode == 0, done.stderr
    assert 'pip install "elicitkit[tasks]"' in done.stdout, done.stdout
