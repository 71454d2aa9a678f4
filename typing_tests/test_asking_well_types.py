"""Static typing contract of retries, timeouts and URL mode (issue 8).

Only type-checked (mypy and pyright, strict), never executed.
"""

from __future__ import annotations

import dataclasses

from typing_extensions import assert_type

from elicitkit import ElicitError, ElicitResultTyped, ask
from elicitkit.errors import ElicitationTimeout
from elicitkit.url import (
    LocalUrlRouter,
    UrlRouter,
    ask_url,
    complete_url,
    new_elicitation_id,
    use_url_router,
)


@dataclasses.dataclass
class Name:
    name: str


async def done(cid: str) -> bool:
    return bool(cid)


async def check_retries_timeouts_and_urls() -> None:
    assert_type(await ask(Name, retries=0, timeout=None), ElicitResultTyped[Name])
    assert_type(await ask(bool, "Sure?", retries=3, timeout=30.0), ElicitResultTyped[bool])
    answer = await ask_url("Sign in", "https://acme.example/login")
    assert_type(answer, ElicitResultTyped[str])
    assert_type(
        await ask_url("Sign in", lambda cid: f"https://acme.example/?s={cid}", completed=done),
        ElicitResultTyped[str],
    )
    assert_type(await complete_url(new_elicitation_id()), bool)
    router: UrlRouter = LocalUrlRouter()
    use_url_router(router)
    timeout_is_an_elicit_error: type[ElicitError] = ElicitationTimeout
    assert timeout_is_an_elicit_error
