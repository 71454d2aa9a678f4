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
