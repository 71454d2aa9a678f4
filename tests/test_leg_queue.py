"""`LegQueue`'s Redis URL: a Docket beside a `RedisTaskStore` reaches the same server.

A redis-py client keeps no URL, so `redis_url_of` writes one from the client's settings;
each URL here goes through a client and back, and must give a client of the same settings.
Before, a password with ``@``, ``:`` or ``/`` made a URL that pointed elsewhere, a TLS
client's URL said ``redis://`` (its pool's class is the plain one; its connections' are
not), and a socket's password was dropped.
"""

from __future__ import annotations

import pytest
from redis.asyncio import Redis

from elicitkit._runtime.leg_queue import redis_url_of

SETTINGS = ("username", "password", "host", "port", "db", "path")


@pytest.mark.parametrize(
    "url",
    [
        "redis://localhost:6379/0",
        "redis://us%40er:p%40ss%3Aw%2Fd%25@10.0.0.7:6390/3",
        "redis://:only%20a%20password@cache:6379/2",
        "rediss://cache.example:6380/0",
        "unix:///run/redis/redis.sock?db=2&password=x%26y%3D",
    ],
)
def test_the_url_gives_a_client_of_the_same_settings(url: str) -> None:
    given = Redis.from_url(url)  # pyright: ignore[reportUnknownMemberType]
    written = redis_url_of(given)
    assert written is not None
    again = Redis.from_url(written)  # pyright: ignore[reportUnknownMemberType]
    before, after = given.connection_pool, again.connection_pool
    assert {key: after.connection_kwargs.get(key) for key in SETTINGS} == {
        key: before.connection_kwargs.get(key) for key in SETTINGS
    }
    assert after.connection_class is before.connection_class  # TLS stays TLS


def test_an_object_that_is_no_redis_client_has_no_url() -> None:
    assert redis_url_of(object()) is None
