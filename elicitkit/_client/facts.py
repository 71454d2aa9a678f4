"""What real MCP clients do with forms: the one table behind test profiles and ``check``.

Every row cites its public evidence (issues and pull requests, hands-on trials recorded in
the project's field notes, November 2026, or what the interop suite saw real clients do,
recorded in ``docs/clients.json``). The testing kit's client profiles
(`elicitkit.testing.PROFILES`) reproduce one behaviour each; ``elicitkit check`` reads
`KNOWN_CLIENTS` to warn about forms that some real client shows badly. A fact that changes
is changed here, once.
"""

from __future__ import annotations

from dataclasses import dataclass

from elicitkit.protocol import PROTOCOL_VERSIONS, ProtocolVersion


@dataclass(frozen=True)
class ClientProfile:
    """How one client (real, or one behaviour of real clients) treats a form.

    Attributes:
        name: A short identifier (``codex``, ``declines-everything``).
        summary: One sentence: what the client does.
        evidence: The public sources for it.
        elicitation: It declares the elicitation capability at all.
        url_mode: It declares URL mode next to form mode.
        protocols: The protocol versions it speaks, oldest first; it picks the newest one
            the server also speaks.
        renders: It shows the form. ``False``: it accepts the request and never answers
            (the server waits until something times out).
        declines_all: It answers every form with ``decline`` at once, without showing it.
        number_widgets: It has inputs for ``integer`` and ``number`` fields.
        multi_select_widgets: It has inputs for multi-select (``array``) fields.
        applies_defaults: It prefills defaults and sends them back when the user keeps them.
        strict_keys: It refuses a ``requestedSchema`` with any key outside the spec's types.
        fills_untouched: It sends optional fields the user left alone (and that have no
            default) as if answered: a single choice as its first option (a radio list
            always has one selected), a yes/no as ``false``, a multi-select as ``[]``. Text
            and numbers left alone stay absent. The server cannot tell these from answers.
        checks_min_length: It refuses to send a text shorter than its ``minLength``: the
            form stays open with an error under it until the user fixes the text or leaves.
        breaks_on_cleared: A field the user filled and then emptied (`CLEARED` in a
            scripted answer) breaks the answer, as in the MCP Inspector: on the 2025 eras
            the client answers the server with error -32602 instead of a result (a cleared
            choice is sent as ``null``, a cleared number as ``undefined``, and the client's
            own SDK refuses both); on 2026-07-28 a cleared choice fails the call inside the
            client, which never calls the tool again, and a cleared number is left out.
            ``False``: a cleared field is left out of the answer.
        fills_inputs: Its inputs always hold a value, and it sends it for an optional field
            the user left alone that has no default: a yes/no as ``false``, a multi-select
            as ``[]``, a number as ``0`` (the mcp-use Inspector). A select left on its
            placeholder and text left empty stay absent.
        cancel_fails: Its Cancel never reaches the tool as ``cancel``: on the 2025 eras it
            answers the server's request with error -32603 ("User cancelled elicitation
            request"), so ``ask()`` raises `ElicitationFailed`; on 2026-07-28 the call fails
            inside the client with that message and the tool is never called again.
        decline_as_cancel: It sends the user's "decline" as ``cancel``.
        multi_select_as_text: It sends a multi-select as one plain string instead of a list
            (the profile joins the options with ``", "``; the real client's exact text was
            not recorded), which the server refuses.
        url_mode_fails: It declares URL mode, then answers every URL request with error
            -32603.
        must_answer_flags: It cannot leave an optional yes/no or number unanswered: a
            scripted answer that leaves one out is a `ScriptError` (give it a value).
        sources: The evidence for single facts, as ``(fact, source)`` pairs, where
            ``evidence`` covers more than that fact.
        notes: What a server's author should know about the client beyond its forms (how
            it connects, what it lacks), one sentence each; ``elicitkit check`` says them.
    """

    name: str
    summary: str
    evidence: str
    elicitation: bool = True
    url_mode: bool = True
    protocols: tuple[ProtocolVersion, ...] = PROTOCOL_VERSIONS
    renders: bool = True
    declines_all: bool = False
    number_widgets: bool = True
    multi_select_widgets: bool = True
    applies_defaults: bool = True
    strict_keys: bool = False
    fills_untouched: bool = False
    checks_min_length: bool = False
    breaks_on_cleared: bool = False
    fills_inputs: bool = False
    cancel_fails: bool = False
    decline_as_cancel: bool = False
    multi_select_as_text: bool = False
    url_mode_fails: bool = False
    must_answer_flags: bool = False
    sources: tuple[tuple[str, str], ...] = ()
    notes: tuple[str, ...] = ()

    def source_for(self, fact: str) -> str:
        """The evidence for one fact (an attribute name), else the client's evidence."""
        return next((source for name, source in self.sources if name == fact), self.evidence)


_2025 = PROTOCOL_VERSIONS[:2]
_OBSERVED = PROTOCOL_VERSIONS[1:]  # the interop suite runs real clients on these two
_INTEROP = "docs/clients.json, from the interop suite"


_AI_SDK_TEST = "tests/interop/test_ai_sdk.py"
_AI_SDK_STDIO = (
    "Over stdio on its default settings it gives up on its server/discover probe after one "
    "second and sends initialize on the same connection, which a server slower to start (a "
    "Python server on a busy machine) answers with -32022; its users set "
    "transport.waitsForProtocolVersionDiscovery = true (docs/clients.md; "
    f"{_AI_SDK_TEST}: test_default_settings_lose_the_stdio_probe_race)."
)
_AI_SDK_NO_TASKS = (
    "It has no Tasks extension, so on 2026-07-28 the code after go_async() runs again in "
    "each later round of questions: act in a step() or after the last question "
    f"({_AI_SDK_TEST}: test_go_async_without_tasks_follows_the_replay_rule)."
)
_INSPECTOR_CLI_PER_CALL = (
    "It declares no elicitation and starts a new stdio server for every call: "
    'install(server, on_unsupported="ask_model") lets it finish a form through answer_form, '
    "once, with the default records (docs/records.md; tests/interop/test_inspector_cli.py)."
)


def _widgets_seen(test: str) -> tuple[tuple[str, str], ...]:
    """``sources`` entries: an interop test filled a number and a multi-select input."""
    return (("number_widgets", test), ("multi_select_widgets", test))


KNOWN_CLIENTS: dict[str, ClientProfile] = {
    client.name: client
    for client in (
        ClientProfile(
            "claude-code",
            "Claude Code CLI: renders every field kind and defaults; no URL mode.",
            "laravel/mcp PR#190 (12 probes render); anthropics/claude-code #69555, #88075 "
            "(URL mode not advertised); #62319 (auto-declines when it believes it is in print "
            "mode)",
            url_mode=False,
        ),
        ClientProfile(
            "claude-desktop",
            "Claude Desktop: advertises elicitation, then never shows the form.",
            "OctopusDeploy/mcp-server PR#103 (skips rendering); field notes, November 2026 "
            "(the request hangs about 180 s)",
            url_mode=False,
            renders=False,
        ),
        ClientProfile(
            "codex",
            "OpenAI Codex: no integer, number or multi-select inputs (it falls back to "
            "approve/decline); rejects unknown schema keys such as a top-level title.",
            "laravel/mcp PR#190 (probe matrix); openai/codex #31163 (unknown field 'title'); "
            "openai/codex #29344 (URL mode behind a flag)",
            url_mode=False,
            number_widgets=False,
            multi_select_widgets=False,
            strict_keys=True,
            sources=(
                ("number_widgets", "laravel/mcp PR#190"),
                ("multi_select_widgets", "laravel/mcp PR#190"),
                ("strict_keys", "openai/codex #31163"),
            ),
        ),
        ClientProfile(
            "copilot-cli",
            "GitHub Copilot CLI: forms on the 2025 eras only.",
            "field notes, November 2026 (sends 2025-11-25)",
            url_mode=False,
            protocols=_2025,
        ),
        ClientProfile(
            "fast-agent",
            "fast-agent 0.10.48 (terminal forms): renders every field kind and defaults; "
            "sends optional fields left alone as answers (a choice as its first option, a "
            "yes/no as false, a multi-select as []); stops text shorter than minLength; "
            "does not check dates.",
            f"{_INTEROP}: fast-agent, eras auto (2026-07-28) and legacy (2025-11-25)",
            protocols=_OBSERVED,
            fills_untouched=True,
            checks_min_length=True,
            sources=(
                ("protocols", f"{_INTEROP}, fact 'protocol'"),
                *_widgets_seen(
                    "tests/interop/test_fast_agent.py: test_every_widget_filled_by_keystrokes"
                ),
                ("applies_defaults", f"{_INTEROP}, fact 'untouched_optional_form' (view=garden)"),
                ("fills_untouched", f"{_INTEROP}, fact 'untouched_optional_form'"),
                ("checks_min_length", f"{_INTEROP}, fact 'checks_min_length'"),
            ),
        ),
        ClientProfile(
            "gemini-cli",
            "Gemini CLI: no elicitation (it advertises only roots).",
            "field notes, November 2026 ('Method not found'); user-needs §2",
            elicitation=False,
            url_mode=False,
            protocols=_2025,
        ),
        ClientProfile(
            "goose",
            "Goose: forms, on the 2025 eras only.",
            "aaif-goose/goose #11194 (2026-07-28 not yet supported); docs PR#6060",
            url_mode=False,
            protocols=_2025,
        ),
        ClientProfile(
            "mcp-inspector",
            "MCP Inspector 2.12.0 (web UI): renders every field kind and defaults; dates are "
            "plain text; checks no minLength; a cleared optional choice or number breaks "
            "the answer.",
            f"{_INTEROP}: mcp-inspector, eras legacy (2025-11-25) and modern (2026-07-28)",
            protocols=_OBSERVED,
            breaks_on_cleared=True,
            sources=(
                ("protocols", f"{_INTEROP}, fact 'protocol'"),
                *_widgets_seen("tests/interop/test_inspector.py: test_every_widget_filled_by_hand"),
                ("applies_defaults", f"{_INTEROP}, fact 'untouched_optional_form' (view=garden)"),
                (
                    "breaks_on_cleared",
                    f"{_INTEROP}, facts 'cleared_optional_select', 'cleared_optional_number'",
                ),
            ),
        ),
        ClientProfile(
            "mcp-agent",
            "mcp-agent 0.2.6 (console forms; imports only with mcp<2): sends a multi-select "
            "as a plain string and a decline as cancel; declares URL mode, then fails it "
            "(-32603); cannot leave an optional yes/no or number unanswered.",
            "field notes, November 2026 (driven by hand against elicitkit servers); "
            "docs/clients.json, entered by hand: mcp-agent, era legacy (2025-11-25)",
            # Its mcp 1.x client offers 2025-11-25, the newest it knows (and what it spoke).
            protocols=PROTOCOL_VERSIONS[1:2],
            decline_as_cancel=True,
            multi_select_as_text=True,
            url_mode_fails=True,
            must_answer_flags=True,
            sources=(
                ("protocols", "docs/clients.json, fact 'protocol' (the mcp 1.x client)"),
                ("decline_as_cancel", "docs/clients.json, fact 'declined_form'"),
                ("multi_select_as_text", "docs/clients.json, fact 'multi_select_arrives_as'"),
                ("url_mode_fails", "docs/clients.json, fact 'url_mode_accepted'"),
                ("must_answer_flags", "docs/clients.json, fact 'skips_optional_flags'"),
            ),
        ),
        ClientProfile(
            "mcp-use-inspector",
            "mcp-use Inspector 20.3.10 (web UI, own proxy): renders every field kind and "
            "defaults; sends a yes/no left alone as false, a multi-select as [] and a "
            "number as 0; its Cancel fails the call instead of reaching the tool.",
            f"{_INTEROP}: mcp-use-inspector, eras auto (2026-07-28) and legacy (2025-11-25)",
            protocols=_OBSERVED,
            fills_inputs=True,
            cancel_fails=True,
            sources=(
                ("protocols", f"{_INTEROP}, fact 'protocol'"),
                *_widgets_seen(
                    "tests/interop/test_mcp_use_inspector.py: test_every_widget_filled_by_hand"
                ),
                ("applies_defaults", f"{_INTEROP}, fact 'untouched_optional_form' (view=garden)"),
                ("fills_inputs", f"{_INTEROP}, fact 'untouched_optional_form'"),
                ("cancel_fails", f"{_INTEROP}, fact 'cancelled_form'"),
                ("url_mode", f"{_INTEROP}, fact 'url_mode_accepted'"),
            ),
        ),
        ClientProfile(
            "vscode-copilot",
            "VS Code with Copilot: forms on the 2025 eras; an empty form never submits.",
            "PrefectHQ/fastmcp #3910 (empty properties renders a dead form); "
            "DollhouseMCP/mcp-server #1363",
            protocols=_2025,
        ),
        ClientProfile(
            "ai-sdk",
            "Vercel AI SDK MCP client 2.0.99 (@ai-sdk/mcp; the app's elicitation handler "
            "answers): forms only, every field kind sent as the handler returns it; no Tasks "
            "extension; over stdio its defaults cannot reach a server slow to start.",
            f"{_INTEROP}: ai-sdk, eras auto (2026-07-28) and legacy (2025-11-25); {_AI_SDK_TEST}",
            url_mode=False,
            protocols=_OBSERVED,
            sources=(
                ("protocols", f"{_INTEROP}, fact 'protocol'"),
                *_widgets_seen(f"{_AI_SDK_TEST}: test_every_field_kind_arrives_typed"),
                ("url_mode", f"{_AI_SDK_TEST}: test_url_mode_is_refused_before_anything_is_sent"),
            ),
            notes=(_AI_SDK_STDIO, _AI_SDK_NO_TASKS),
        ),
        ClientProfile(
            "mcp-inspector-cli",
            "MCP Inspector 2.12.0 --cli: no elicitation; one request per run, and over stdio "
            "a new server process per run.",
            "tests/interop/test_inspector_cli.py (--protocol-era legacy and modern, over "
            "HTTP and stdio)",
            elicitation=False,
            url_mode=False,
            protocols=_OBSERVED,
            notes=(_INSPECTOR_CLI_PER_CALL,),
        ),
        ClientProfile(
            "strands-agents",
            "strands-agents 1.62.0 (Python; the application's elicitation callback answers): "
            "hands every field kind, URL mode and tasks' questions to the callback untouched "
            "and sends its answer as it is (no defaults filled in); 2025-11-25 with mcp "
            "1.30, 2026-07-28 with mcp 2.1.",
            f"{_INTEROP}: strands-agents, eras mcp-1.30.0 (2025-11-25) and mcp-2.1.1 (2026-07-28)",
            protocols=_OBSERVED,
            # Whatever default the schema has, only the callback can send it back.
            applies_defaults=False,
            sources=(
                ("protocols", f"{_INTEROP}, fact 'protocol'"),
                *_widgets_seen(
                    "tests/interop/test_strands.py: test_every_field_kind_arrives_typed"
                ),
                (
                    "applies_defaults",
                    "tests/interop/test_strands.py: test_answers_travel_as_the_callback_gave_them",
                ),
                ("url_mode", f"{_INTEROP}, fact 'url_mode_accepted'"),
            ),
        ),
    )
}
"""Real clients, as far as public evidence shows (November 2026)."""

PROFILES: dict[str, ClientProfile] = {
    profile.name: profile
    for profile in (
        ClientProfile(
            "no-elicitation",
            "Declares no elicitation capability: ask() raises ElicitationUnsupported.",
            "Gemini CLI (field notes: advertises only roots); pulsemcp/mcp-servers #384 "
            "(Claude Code once declared none); JetBrains Copilot "
            "(microsoft/copilot-intellij-feedback #1511)",
            elicitation=False,
            url_mode=False,
        ),
        ClientProfile(
            "form-only",
            "Declares form mode and no URL mode (elicitation: {form: {}}).",
            "anthropics/claude-code #69555, #88075 (Claude Code narrowed its capability to "
            "form only); Copilot CLI, Goose (field notes)",
            url_mode=False,
        ),
        ClientProfile(
            "declines-everything",
            "Answers every form with an instant decline, without showing it.",
            "openai/codex #6992 (advertised, auto-declined); microsoft/vscode #299011 (Claude "
            "agent in VS Code declines silently); anthropics/claude-code #62319 (print mode)",
            url_mode=False,
            declines_all=True,
        ),
        ClientProfile(
            "never-renders",
            "Accepts the request and never shows the form: the server waits until a timeout.",
            "OctopusDeploy/mcp-server PR#103 (Claude Desktop skips rendering); field notes "
            "(a 180 s hang); aaif-goose/goose #6471 (form shown only after a timeout)",
            url_mode=False,
            renders=False,
        ),
        ClientProfile(
            "ignores-defaults",
            "Does not prefill defaults: a field the user leaves alone is sent absent.",
            "laravel/mcp PR#190 (Codex over HTTP: 'the name default was not visible'); "
            "typescript-sdk PR#1097 (clients applying defaults was added late)",
            applies_defaults=False,
        ),
        ClientProfile(
            "strict-keys",
            "Refuses a requestedSchema with any key outside the spec's types.",
            "openai/codex #31163 (serde deny_unknown_fields: unknown field 'title'); "
            "modelcontextprotocol/php-sdk PR#437",
            url_mode=False,
            strict_keys=True,
        ),
        ClientProfile(
            "no-number-or-multi-select",
            "Has no integer, number or multi-select inputs: shows only approve/decline and "
            "sends no content for such a form.",
            "laravel/mcp PR#190 (Codex falls back to an approval/decline-only prompt); field "
            "notes (Codex has accepted with content: None)",
            url_mode=False,
            number_widgets=False,
            multi_select_widgets=False,
        ),
        ClientProfile(
            "2025-06-18-only",
            "Speaks only 2025-06-18: enumNames labels, defaults on booleans only, no "
            "multi-selects.",
            "MCP specification 2025-06-18; clients on older SDKs (user-needs §2)",
            url_mode=False,
            protocols=PROTOCOL_VERSIONS[:1],
        ),
        ClientProfile(
            "2025-eras-only",
            "Speaks 2025-06-18 and 2025-11-25 but not 2026-07-28: questions arrive mid-call.",
            "Copilot CLI (field notes: sends 2025-11-25); aaif-goose/goose #11194; "
            "NousResearch/hermes-agent #106800",
            protocols=_2025,
        ),
    )
}
"""One known behaviour each, to run a tool's tests against."""
