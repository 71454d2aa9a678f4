"""`RedisStore`: dialogue outcomes in Redis, shared by every process that serves the clients.

Needs the ``redis`` extra, redis-py 5+ for its asyncio client (``pip install "redis>=5"``)::

    from redis.asyncio import Redis
    from elicitkit.stores import RedisStore

    elicitkit.install(server, store=RedisStore(Redis.from_url("redis://localhost:6379/0")))

Each dialogue is one key, living ``keep`` milliseconds from its last write. Its value is:

* ``O<run>``: open, written while Redis ran as ``<run>``;
* ``L<deadline>:<run>:<token>``: leased by ``<token>`` until ``<deadline>`` (milliseconds
  of Redis's own clock, ``TIME``, so worker clocks never matter);
* ``S<deadline>:<run>:<token>``: the same lease, held inside a ``retry_safe`` step (`hold`):
  lapsed, the next claim takes it instead of reading the dialogue as interrupted;
* ``R<outcome>``: recorded; ``I``: interrupted (a lease lapsed without a record).

``p:<caller>`` is the set of a caller's open dialogues (a principal's digest; anonymous
callers share ``p:``). The script that opens a dialogue adds it there in the same atomic
step, and refuses a caller holding ``max_per_caller`` (`CallerFull`) while the others go on.
A record stays one ``SET``: the set is pruned only when its caller is at the cap (linear in
the cap), of the dialogues recorded, interrupted, expired, or left by another run of Redis.
The set expires ``keep`` after its caller's last new dialogue, so the cap counts what one
caller opened within ``keep``: a dialogue kept going longer by its later rounds, with no new
one beside it, stops counting (its rounds are still capped, `ReplayLimits.max_rounds`).

``<run>`` is the first 16 characters of the server's ``run_id``, which changes whenever
Redis restarts or a replica takes over. An open or leased entry written under another run
id is not trusted: a record written after it may be the very write the restart or the
failover lost (``appendfsync everysec`` loses up to a second, a replica may lag), so its
dialogue is refused as forgotten rather than run again. The price is that a Redis restart
ends the calls in progress (their users start afresh); completed calls still replay.

Every operation is one Lua script (or one ``SET``), so one atomic step and one round trip,
sent by its digest (``EVALSHA``; the script's text only when Redis answers ``NOSCRIPT``:
`elicitkit._replay.redis_scripts.run_script`), and idempotent (a claim sent twice by the
same round finds its own lease), so each is sent once more on a fresh connection when the
first fails to reach Redis: after a restart the client's pooled connections are dead, and the
first command on each fails. The durability this relies on, and what `RedisStore` checks of
it at first use, is in ``docs/http.md``.
"""

from __future__ import annotations

import logging
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import ConnectionError  # noqa: A004  (redis's)

from elicitkit._replay.limits import check_counts
from elicitkit._replay.redis_scripts import run_script
from elicitkit._replay.store import DEFAULT_MAX_OPEN_PER_CALLER, Claim, dialogues_full

logger = logging.getLogger("elicitkit")

# Shared by every script: effects replication (needed before Redis 7 for a write after
# TIME or INFO), the time in milliseconds of Redis's clock, and this server's run id.
_PRELUDE = """
if redis.replicate_commands then redis.replicate_commands() end
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local run = string.sub(string.match(redis.call('INFO', 'server'), 'run_id:(%x+)') or '', 1, 16)
local value = redis.call('GET', KEYS[1])
"""
# KEYS: the dialogue, its caller's set. ARGV: keep (ms), max_per_caller, the dialogue's id,
# the prefix. Returns 0, opening nothing, when the caller holds max_per_caller open ones.
_OPEN = (
    _PRELUDE
    + """
if value == false then
  local limit = tonumber(ARGV[2])
  if redis.call('SCARD', KEYS[2]) >= limit then
    -- At the cap only (linear in it): a dialogue recorded, interrupted or expired, or open
    -- or leased under another run of Redis (refused as forgotten), no longer counts.
    for _, id in ipairs(redis.call('SMEMBERS', KEYS[2])) do
      local found = redis.call('GET', ARGV[4] .. id)
      local owner = found and (string.match(found, '^O(%x*)$')
        or string.match(found, '^[LS]%d+:(%x*):'))
      if owner ~= run then redis.call('SREM', KEYS[2], id) end
    end
    if redis.call('SCARD', KEYS[2]) >= limit then return 0 end
  end
  redis.call('SADD', KEYS[2], ARGV[3])
  redis.call('PEXPIRE', KEYS[2], ARGV[1])
end
redis.call('SET', KEYS[1], 'O' .. run, 'PX', ARGV[1])
return 1
"""
)
# ARGV: token, lease (ms), keep (ms), known ('1' or '0'). Returns false when claimed.
_CLAIM = (
    _PRELUDE
    + """
local kind = value and string.sub(value, 1, 1)
if kind == 'L' or kind == 'S' then
  local deadline, owner, holder = string.match(value, '^[LS](%d+):(%x*):(.*)$')
  if deadline == nil then return 'B' end  -- an older elicitkit's lease: it expires with its key
  if owner == run and tonumber(deadline) > now then
    if holder == ARGV[1] then return false end  -- this very claim, sent again: still ours
    return 'B'
  end
  -- A lapsed safe lease of this run is taken below; of another run, it may be older than
  -- a write the restart lost (the step's end): interrupted, as any other.
  if kind == 'L' or owner ~= run then
    redis.call('SET', KEYS[1], 'I', 'PX', ARGV[3])
    return 'I'
  end
end
if kind == 'R' or kind == 'I' then return value end
if (value == false and ARGV[4] == '1') or (kind == 'O' and string.sub(value, 2) ~= run) then
  return 'F'
end
redis.call('SET', KEYS[1], 'L' .. string.format('%d', now + tonumber(ARGV[2])) .. ':' .. run
  .. ':' .. ARGV[1], 'PX', ARGV[3])
return false
"""
)


def _held(kinds: str) -> str:
    """The prelude, then: unless ``ARGV[1]`` holds the key's lease (kinds ``kinds``), 0."""
    return (
        _PRELUDE
        + f"""
if value == false then return 0 end
local owner, token = string.match(value, '^{kinds}%d+:(%x*):(.*)$')
if token ~= ARGV[1] or owner ~= run then return 0 end"""
    )


# ARGV: token, lease (ms), keep (ms). Returns 1 when renewed.
_RENEW = (
    _held("L")
    + """
redis.call('SET', KEYS[1], 'L' .. string.format('%d', now + tonumber(ARGV[2])) .. ':' .. run
  .. ':' .. token, 'PX', ARGV[3])
return 1
"""
)
# ARGV: token, keep (ms).
_RELEASE = (
    _held("L")
    + """
redis.call('SET', KEYS[1], 'O' .. run, 'PX', ARGV[2])
return 1
"""
)
# ARGV: token, lease (ms), keep (ms), 'S' (inside a retry_safe step) or 'L'. 1 when held.
_HOLD = (
    _held("[LS]")
    + """
redis.call('SET', KEYS[1], ARGV[4] .. string.format('%d', now + tonumber(ARGV[2])) .. ':' .. run
  .. ':' .. token, 'PX', ARGV[3])
return 1
"""
)
_STATUSES = {"B": "busy", "I": "interrupted", "F": "forgotten"}


class RedisStore:
    """An `elicitkit.stores.OutcomeStore` in Redis, for servers that run in several processes."""

    def __init__(
        self,
        client: Redis,
        *,
        prefix: str = "elicitkit:dialogue:",
        max_per_caller: int = DEFAULT_MAX_OPEN_PER_CALLER,
    ) -> None:
        """Store outcomes through ``client`` under keys starting with ``prefix``.

        Args:
            client: A ``redis.asyncio.Redis`` client (the caller owns and closes it).
            prefix: Where in the key space the dialogues live.
            max_per_caller: The most open dialogues of one caller (a principal; anonymous
                callers share one count); past it, that caller's new ones are refused.

        Raises:
            ValueError: ``max_per_caller`` is not a whole number of at least 1.
        """
        check_counts("RedisStore", max_per_caller=max_per_caller)
        self._redis: Any = client  # redis-py's command methods are only partly typed
        self._prefix = prefix
        self._max_per_caller = max_per_caller
        self._checked = False

    @property
    def client(self) -> Any:
        """The ``redis.asyncio.Redis`` client it was given (tasks and URL routes go there)."""
        return self._redis

    async def open(self, dialogue: str, *, keep: float, caller: str = "") -> None:
        """See `elicitkit.stores.OutcomeStore.open`."""
        await self._first_use()
        opened = await self._eval(
            _OPEN,
            dialogue,
            _milliseconds(keep),
            self._max_per_caller,
            dialogue,
            self._prefix,
            also=(self._prefix + "p:" + caller,),
        )
        if opened == 0:
            raise dialogues_full("RedisStore", self._max_per_caller)

    async def claim(
        self, dialogue: str, token: str, *, lease: float, keep: float, known: bool
    ) -> Claim:
        """See `elicitkit.stores.OutcomeStore.claim`."""
        await self._first_use()
        value = await self._eval(
            _CLAIM,
            dialogue,
            token,
            _milliseconds(lease),
            _milliseconds(keep),
            "1" if known else "0",
        )
        if value is None:
            return Claim("claimed")
        text = value.decode() if isinstance(value, bytes) else str(value)
        if text.startswith("R"):
            return Claim("recorded", text[1:])
        return Claim(_STATUSES.get(text, "busy"))  # type: ignore[arg-type]

    async def renew(self, dialogue: str, token: str, *, lease: float, keep: float) -> bool:
        """See `elicitkit.stores.OutcomeStore.renew`."""
        renewed = await self._eval(
            _RENEW, dialogue, token, _milliseconds(lease), _milliseconds(keep)
        )
        return renewed == 1

    async def record(self, dialogue: str, outcome: str, *, keep: float) -> None:
        """See `elicitkit.stores.OutcomeStore.record`."""
        key, value, px = self._prefix + dialogue, "R" + outcome, _milliseconds(keep)
        try:
            await self._redis.set(key, value, px=px)
        except ConnectionError:
            await self._redis.set(key, value, px=px)

    async def release(self, dialogue: str, token: str, *, keep: float) -> None:
        """See `elicitkit.stores.OutcomeStore.release`."""
        await self._eval(_RELEASE, dialogue, token, _milliseconds(keep))

    async def hold(
        self, dialogue: str, token: str, *, retry_safe: bool, lease: float, keep: float
    ) -> bool:
        """See `elicitkit.stores.OutcomeStore.hold`."""
        held = await self._eval(
            _HOLD,
            dialogue,
            token,
            _milliseconds(lease),
            _milliseconds(keep),
            "S" if retry_safe else "L",
        )
        return held == 1

    async def durability_problems(self) -> list[str]:
        """Say which of Redis's settings break at-most-once's durability contract.

        Checks what a client may read: ``maxmemory-policy`` (must be ``noeviction``), and
        persistence (``appendonly yes`` with ``appendfsync always``) unless replicas are
        connected (then the operator is trusted to acknowledge writes with ``WAIT``). A
        setting that cannot be read (``CONFIG`` renamed, as managed services do) is
        skipped.

        Returns:
            One sentence per problem, naming the setting; empty when none was found.
        """
        problems: list[str] = []
        policy = await self._config("maxmemory-policy")
        if policy is not None and policy != "noeviction":
            problems.append(
                f"Redis's maxmemory-policy is {policy}, so Redis may evict dialogue records "
                "under memory pressure, and those dialogues' later rounds are then refused "
                "as forgotten. Set maxmemory-policy noeviction."
            )
        appendonly = await self._config("appendonly")
        fsync = await self._config("appendfsync")
        replicas = await self._replicas()
        if replicas == 0 and appendonly == "no":
            problems.append(
                "Redis neither persists writes (appendonly no) nor has a replica, so a "
                "restart forgets every dialogue, and their later rounds are refused as "
                "forgotten. Set appendonly yes and appendfsync always, or replicate it."
            )
        elif replicas == 0 and appendonly == "yes" and fsync not in (None, "always"):
            problems.append(
                f"Redis's appendfsync is {fsync}, so a crash may lose the last second of "
                "dialogue records, and calls completed in it are refused as forgotten "
                "after the restart. Set appendfsync always."
            )
        return problems

    async def _eval(
        self, script: str, dialogue: str, *args: object, also: tuple[str, ...] = ()
    ) -> object:
        keys = (self._prefix + dialogue, *also)
        try:
            return await run_script(self._redis, script, keys, args)
        except ConnectionError:  # a dead pooled connection: once more, on a fresh one
            return await run_script(self._redis, script, keys, args)

    async def _first_use(self) -> None:
        if self._checked:
            return
        self._checked = True
        try:
            problems = await self.durability_problems()
        except Exception as error:  # noqa: BLE001  (a check must never fail a round)
            logger.info("elicitkit could not check Redis's durability settings: %s", error)
            return
        for problem in problems:
            logger.warning("elicitkit's RedisStore: %s", problem)

    async def _config(self, name: str) -> str | None:
        try:
            found: dict[Any, Any] = await self._redis.config_get(name)
        except Exception:  # noqa: BLE001  (CONFIG may be renamed or refused)
            return None
        value = found.get(name, found.get(name.encode()))
        return value.decode() if isinstance(value, bytes) else value

    async def _replicas(self) -> int | None:
        try:
            info: dict[str, Any] = await self._redis.info("replication")
        except Exception:  # noqa: BLE001  (INFO may be refused)
            return None
        replicas = info.get("connected_slaves")
        return replicas if isinstance(replicas, int) else None


def _milliseconds(seconds: float) -> int:
    return max(1, round(seconds * 1000))
