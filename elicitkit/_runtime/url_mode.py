"""URL mode: send the user to a page (OAuth, payment, credentials) instead of a form.

MCP 2025-11-25 added ``mode: "url"``: the client opens (or offers) a URL with an opaque
``elicitationId``; what the user enters there never passes through the client or the
model. The user's consent comes back as the request's result; the page itself finishes
later, and the server then tells the client with ``notifications/elicitation/complete``.

Completion is routed to the client that asked by the call's server's `UrlRouter`
(`elicitkit._runtime.url_routes`), which ``ask_url`` registers with.
"""

from __future__ import annotations

import ipaddress
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, NoReturn
from urllib.parse import urlsplit

import anyio

import elicitkit._clock as clock
from elicitkit._compiler.prepared_form import question_digest
from elicitkit._compiler.wire_formats import sendable_text
from elicitkit._replay.state import Carried, Replay, WireQuestion
from elicitkit._runtime.answers import in_time, need_input
from elicitkit._runtime.asking import to_the_model
from elicitkit._runtime.context import ToolRun, current_run
from elicitkit._runtime.entry import entry_point, sends_to_a_page
from elicitkit._runtime.keys import URL_STEM, URL_SUBJECT
from elicitkit._runtime.question_log import log_question
from elicitkit._runtime.result import Action, AnsweredBy, ElicitResultTyped
from elicitkit._runtime.timeouts import DEFAULT_TIMEOUT, check_timeout, timed_out
from elicitkit._runtime.unsupported import OnUnsupported
from elicitkit._runtime.url_routes import UrlChannel, UrlRouter, router_for
from elicitkit.errors import ElicitationTimeout, ElicitationUnsupported, ElicitError


def router_of(run: ToolRun) -> UrlRouter:
    """The URL router of the server the call ``run`` belongs to."""
    return router_for(run.url_router)


def new_elicitation_id() -> str:
    """Return a fresh, unguessable elicitation id (128 random bits), e.g. to put in a URL."""
    return secrets.token_urlsafe(16)


_LOCAL_HOSTS = frozenset({"localhost"})


def check_url(url: str) -> str:
    """Return ``url`` if it is safe to send the user to, else raise `ValueError`.

    HTTPS only (plain HTTP only on localhost and loopback addresses), and no user name or
    password in the URL: the client, its logs and the model would all see them.
    """
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError:
        parts, host = None, ""
    if parts is None or not host or parts.scheme not in ("https", "http"):
        raise ValueError(
            f"ask_url() cannot send the user to {url[:200]!r}: it is not an http(s) URL with "
            "a host. Pass the full address of your page, e.g. 'https://example.com/connect'."
        )
    if parts.username is not None or parts.password is not None:
        raise ValueError(
            "ask_url() refuses a URL that carries a user name or password: the client, its "
            "logs and the model would all see them. Put a one-time token in the query "
            "instead, or let the page ask the user to sign in."
        )
    if parts.scheme == "http" and not _is_local(host):
        raise ValueError(
            f"ask_url() refuses the plain-HTTP URL {url[:200]!r}: what the user enters there "
            "would travel unencrypted. Use https:// (plain http is allowed only on "
            "localhost)."
        )
    return url


def _is_local(host: str) -> bool:
    if host in _LOCAL_HOSTS:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


# Refused beside the SDK's Resolve, as ask() is: on 2026-07-28 both would carry their progress
# in the one requestState, each round's question losing the other's (tried: the client is
# asked Resolve's question and the page in turn until it gives up).
@entry_point("ask_url()", in_step=sends_to_a_page("ask_url()"), beside_resolve=True)
async def ask_url(
    message: str,
    url: str | Callable[[str], str],
    *,
    elicitation_id: str | None = None,
    timeout: float | None = DEFAULT_TIMEOUT,  # noqa: ASYNC109  (the user's, for the channel)
    completed: Callable[[str], Awaitable[bool]] | None = None,
    key: str | None = None,
    on_unsupported: OnUnsupported | None = None,
) -> ElicitResultTyped[str]:
    """Ask the user to open ``url`` (URL-mode elicitation), for OAuth, payments or secrets.

    The answer says whether the user agreed to open the page, not that they finished
    there: your page's callback calls `complete_url` with the elicitation id when they
    have, and the client is told (2025-11-25). On 2026-07-28 the URL goes out inside the
    call's ``InputRequiredResult``; when the client retries, ``completed(id)`` is asked
    whether the page is done, and the same URL is asked again until it is. The id is
    minted in the first round and carried in the sealed state (bound by the SDK to the
    tool, its arguments and the principal).

    On 2025-11-25 the route to this session (what `complete_url` uses) is held while the
    question is open and dropped as soon as it is declined, cancelled, times out or fails,
    or the call is cancelled. Accepted, it is kept ``timeout`` seconds more for the page
    (600 with ``timeout=None``), or until the session ends.

    Args:
        message: Why the user should open the page.
        url: The page: ``https://`` (plain ``http://`` only on localhost), with no user
            name or password in it; or a function from the elicitation id to the page, so
            the URL can carry the id (needed on 2026-07-28, where the id comes from the
            state).
        elicitation_id: The id to use, e.g. one from `new_elicitation_id` that your URL
            already carries; default: a fresh unguessable one.
        timeout: Seconds the user has to answer the request (default 600), or ``None``;
            once accepted, the page has as long again to call `complete_url`.
        completed: 2026-07-28: tells whether the user finished on the page with this id.
            Default: the user's consent is taken as done.
        key: The question's key on the wire on 2026-07-28 (as `ask`'s: 1 to 64 letters,
            digits, ``_``, ``-``, ``.``), unique within the call among every question's,
            forms' and URLs' alike, and checked on every era. Default: ``url#1``,
            ``url#2``, ...
        on_unsupported: For a client without URL mode (default: the server's
            ``install(on_unsupported=...)``): ``"ask_model"`` hands the link to the model,
            which shows it to the user and calls ``answer_form`` with the ticket when the
            user says they are done; ``completed(id)`` is still asked, and until it says
            so the link is handed over again (only the URL travels through the model; the
            id stays in the sealed ticket). Any other policy raises.

    Returns:
        ``accept`` with ``.content`` the elicitation id, or a decline or a cancel.

    Raises:
        ElicitationUnsupported: The client did not declare URL mode; nothing was sent.
        ElicitationUnsupported: The call speaks MCP 2025-06-18, which has no URL mode.
        TooManyOpenUrls: The server's URL router is full; nothing was sent.
        FormDefinitionError: ``key`` is malformed or already used in this call; nothing
            was sent.
        ElicitError: ``ask_url()`` was called outside a handler, or beside the SDK's
            Resolve.
        StepError: ``ask_url()`` was called inside a durable step's function.
        ValueError: ``url`` is not a safe URL to send a user to.
    """
    timeout = check_timeout(timeout)
    run, model = _url_run(on_unsupported)
    if model:  # on a 2025 era the dialogue goes on through answer_form
        to_the_model(run)
    return await run.delivery.ask_url(
        run,
        message,
        url,
        elicitation_id=elicitation_id,
        timeout=timeout,
        completed=completed,
        key=key,
        model=model,
    )


async def ask_url_mid_call(
    run: ToolRun,
    message: str,
    url: str | Callable[[str], str],
    *,
    elicitation_id: str | None,
    timeout: float | None,  # noqa: ASYNC109  (the user's, for the channel)
    key: str | None,
) -> ElicitResultTyped[str]:
    """2025-11-25: the URL request sent mid-call, its completion routed to this session."""
    # Not on the wire mid-call, but claimed all the same: the key is refused here as it
    # would be on 2026-07-28, and keeps the run's keys unique across forms and URLs.
    _claim(run, key, "ask_url()")
    eid = elicitation_id or new_elicitation_id()
    params: dict[str, Any] = {
        "mode": "url",
        "message": sendable_text(message),
        "url": check_url(url(eid) if callable(url) else url),
        "elicitationId": eid,
    }
    router = router_of(run)
    await _register(router, run.urls, eid, _while_asked(timeout))
    started = clock.monotonic()
    action: object = None
    try:
        raw = await run.channel.send(params, timeout)
        action = raw.get("action")
    finally:
        if action == "accept":
            # The page finishes later (2025-11-25): the route outlives the call, for as long
            # again as the user had to answer. Already completed (the page was quick): no-op.
            await router.extend(eid, keep=_page_time(timeout))
        else:  # declined, cancelled, timed out, failed, or the call itself was cancelled
            await _drop(router, eid)
    _log(run, "url", str(action), clock.monotonic() - started)  # never the id: it is a secret
    if action == "accept":
        return ElicitResultTyped("accept", eid)
    if action in ("decline", "cancel"):
        return ElicitResultTyped(action, None)
    raise ElicitError(
        f"The client's answer to the URL request is not an elicitation result: its action "
        f"is {str(action)[:50]!r}, not 'accept', 'decline' or 'cancel'."
    )


@entry_point("require_url()", in_step=sends_to_a_page("require_url()"), beside_resolve=True)
async def require_url(
    message: str, url: str, *, elicitation_id: str | None = None, key: str | None = None
) -> NoReturn:
    """End the call by sending the user to ``url``, for a tool that cannot go on without it.

    For a tool that can do nothing until the user has visited the page (signed in, paid):
    check first whether that is done, and call this only when it is not. On 2025-11-25 the
    call ends with the URL-elicitation-required error (-32042); the client shows the URL and
    calls the tool again once the page is complete (`complete_url`). On 2026-07-28, which
    has no such error (the spec reserves -32042 and forbids sending it), the URL goes out as
    the question of the call's ``InputRequiredResult``; when the client retries, the tool
    runs again from the top, and either finds the page done and goes on, or calls this
    again, and the user is sent to the page again.

    Args:
        message: Why the user should open the page.
        url: The page (see `ask_url`).
        elicitation_id: 2025-11-25: the id to use (default: a fresh unguessable one).
        key: The question's key (see `ask_url`; default ``url#1``).

    On 2025-11-25 the route to this session is kept 600 seconds for the page, or until the
    session ends.

    Raises:
        ElicitationUnsupported: The client did not declare URL mode.
        TooManyOpenUrls: The server's URL router is full.
        FormDefinitionError: ``key`` is malformed or already used in this call.
        ElicitError: ``require_url()`` was called outside a handler, or beside the SDK's
            Resolve.
        StepError: ``require_url()`` was called inside a durable step's function.
        ValueError: ``url`` is not a safe URL to send a user to.
    """
    check_url(url)
    run, _ = _url_run("raise")
    await run.delivery.require_url(run, message, url, elicitation_id=elicitation_id, key=key)


def require_url_by_replay(
    run: ToolRun, replay: Replay, message: str, url: str, *, key: str | None
) -> NoReturn:
    """2026-07-28: the URL goes out as the round's question, asked afresh every time."""
    # The user comes back here only if the page is not done.
    question, _ = _url_question(
        run, replay, message, url, key=key, timeout=None, function="require_url()"
    )
    raise need_input(replay, (question,))


async def require_url_mid_call(
    run: ToolRun, message: str, url: str, *, elicitation_id: str | None, key: str | None
) -> NoReturn:
    """2025-11-25: end the call with the URL-elicitation-required error (-32042)."""
    _claim(run, key, "require_url()")  # as ask_url() does mid-call
    eid = elicitation_id or new_elicitation_id()
    # The call ends now and the client opens the page: the route outlives the call.
    await _register(router_of(run), run.urls, eid, DEFAULT_TIMEOUT)
    raise run.urls.url_required(sendable_text(message), url, eid)


_ACCEPT_GRACE = 5.0
"""Seconds a route outlives its question's timeout, so an answer at the deadline finds it."""

_NO_TIMEOUT_BOUND = 86_400.0
"""With ``timeout=None`` a route is held while its question is open; its expiry (a day) only
bounds a Redis key whose process died mid-question."""


def _while_asked(timeout: float | None) -> float:
    """How long a route is kept while its question is open (it is dropped when that ends)."""
    return (_NO_TIMEOUT_BOUND if timeout is None else timeout) + _ACCEPT_GRACE


def _page_time(timeout: float | None) -> float:
    """How long an accepted question's route is kept for the page: ``timeout`` again."""
    return DEFAULT_TIMEOUT if timeout is None else timeout


async def _register(router: UrlRouter, urls: UrlChannel, eid: str, keep: float) -> None:
    await router.register(eid, urls.completion_notifier(eid), keep=keep, session=urls.session)


async def _drop(router: UrlRouter, eid: str) -> None:
    """Drop the route, even while the call is being cancelled (bounded: 5 s for Redis)."""
    with anyio.move_on_after(5.0, shield=True):
        await router.drop(eid)


def _url_run(policy: OnUnsupported | None) -> tuple[ToolRun, bool]:
    """The call, and whether its URL question goes to the model (``"ask_model"``).

    Raises:
        ElicitationUnsupported: The client has no URL mode, and the policy does not hand
            the link to the model.
    """
    run = current_run.get()
    channel = run.channel
    if policy is None:
        policy = run.on_unsupported
    if channel.protocol not in ("2025-11-25", "2026-07-28"):
        if policy == "ask_model" and run.answer_tool:
            return run, True
        raise ElicitationUnsupported(
            f"URL mode is not available on this call: it speaks MCP {channel.protocol}, "
            "which has no URL mode (it arrived in 2025-11-25). Send the user the link in "
            "the tool's result instead."
        )
    why_not = run.delivery.why_no_url()
    if why_not is not None:
        if policy == "ask_model" and run.answer_tool:
            return run, True
        raise ElicitationUnsupported(
            f"This client cannot open a URL for the user ({why_not}), so the tool could "
            "not send the user to the page. Give the user the link in the tool's result "
            "instead."
        )
    return run, False


async def ask_url_by_replay(
    run: ToolRun,
    replay: Replay,
    message: str,
    url: str | Callable[[str], str],
    *,
    completed: Callable[[str], Awaitable[bool]] | None,
    key: str | None,
    timeout: float | None,  # noqa: ASYNC109  (the question's deadline, not this call's)
    model: bool = False,
) -> ElicitResultTyped[str]:
    """2026-07-28: the URL question in the replay, its correlation id in the state.

    With ``model``, the link goes to the model instead (``on_unsupported="ask_model"``, on
    any era): its "done" comes through ``answer_form``, and ``completed`` still decides.
    """
    question, cid = _url_question(
        run, replay, message, url, key=key, timeout=timeout, function="ask_url()"
    )
    key = question.key
    if model:
        run.keys.for_the_model.add(key)
    carried = replay.carried(question.key, question.digest)
    if carried is not None and carried.action == "timeout":  # answered late, rounds ago
        raise ElicitationTimeout(timed_out(question.timeout or 0.0, link=True))
    if carried is None:
        raw = in_time(replay, question, link=True)
        said = None if raw is None else raw.get("action")
        if said not in ("accept", "decline", "cancel"):
            raise need_input(replay, (question,))  # not answered (yet)
        if said == "accept" and completed is not None and not await completed(cid):
            raise need_input(replay, (question,))  # not done on the page: again
        carried = Carried(question.digest, str(said))
        replay.keep(question.key, carried)
        asked_at = replay.asked_at
        _log(run, key, str(said), None if asked_at is None else max(0.0, clock.now() - asked_at))
    by: AnsweredBy = "model" if key in run.keys.for_the_model else "user"
    if carried.action == "accept":
        return ElicitResultTyped("accept", cid, by)
    action: Action = "decline" if carried.action == "decline" else "cancel"
    return ElicitResultTyped(action, None, by)


def _url_question(
    run: ToolRun,
    replay: Replay,
    message: str,
    url: str | Callable[[str], str],
    *,
    key: str | None,
    timeout: float | None,
    function: str,
) -> tuple[WireQuestion, str]:
    """2026-07-28: the URL question under its key, and its correlation id (in the state)."""
    key = _claim(run, key, function)
    cid = replay.correlations.get(key) or new_elicitation_id()
    replay.correlations[key] = cid
    params: dict[str, Any] = {
        "mode": "url",
        "message": sendable_text(message),
        "url": check_url(url(cid) if callable(url) else url),
    }
    return WireQuestion(key, question_digest(params), params, timeout), cid


def _claim(run: ToolRun, key: str | None, function: str) -> str:
    """The URL question's key, claimed as a form's is (see `elicitkit._runtime.keys`)."""
    return run.keys.claim(key, stem=URL_STEM, subject=URL_SUBJECT, function=function)


def _log(run: ToolRun, key: str, outcome: str, seconds: float | None) -> None:
    """The log record of a URL question, as `ask()` writes one per form."""
    if outcome not in ("accept", "decline", "cancel"):
        outcome = "failed"
    log_question(
        tool=run.target,
        protocol=run.channel.protocol,
        key=key,
        outcome=outcome,
        seconds=seconds,
        retries=0,
        invalid_fields=(),
        mode="url",
    )
