"""Where the legs of tasks wait for a worker: a queue on Docket (``pydocket``).

A leg is one run of a task's tool (`elicitkit.integrations._task_legs`). Which worker runs
it, and what happens when that worker dies, is a queue's job, and elicitkit writes no queue
of its own: legs go on Docket, the engine fastmcp and Prefect run their tasks on (Redis
Streams with consumer groups; a live worker renews its claim on each message, and a dead
worker's messages are delivered again after ``redelivery_timeout``).

* **One process** (memory or SQLite records): an embedded Docket (``memory://``, on
  ``burner-redis``) in the process's event loop. Several processes on one machine each have
  their own; a leg orphaned by a process that died is queued again by the process whose
  request finds it (the records, shared in the SQLite file, say so: `TaskEngine.claim`).
* **Several machines** (Redis records): a Docket on the same Redis, shared by every worker:
  a leg queued by one worker runs on any, and Docket itself delivers a dead worker's leg
  again after ``resume_after`` seconds.

A message carries only the task's id and the leg's number; the leg's content (the call,
the answers) stays in the sealed task record. The worker runs in the server's own event
loop, started by the first leg queued there, so a server that never goes async never
imports Docket (the ``tasks`` extra: 18 more packages, 43 MB; its import took
600 to 700 ms beside elicitkit and the SDK on a 2-core machine).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import secrets
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any, cast
from urllib.parse import quote

from elicitkit.errors import ElicitError

logger = logging.getLogger("elicitkit")

LegRunner = Callable[[str, int], Awaitable[None]]
"""Runs leg ``leg`` of task ``task_id`` (``runner(task_id, leg)``) on this worker."""

TASKS_EXTRA_HINT = (
    'Install Docket with elicitkit\'s tasks extra: pip install "elicitkit[tasks]" (in a '
    'checkout: pip install -e ".[tasks]"), or pydocket itself.'
)

# The Docket task's name, the same in every process so that any worker runs any leg.
_LEG_TASK = "elicitkit_task_leg"


def docket_available() -> bool:
    """Whether Docket can be imported (without importing it: a server may never need it)."""
    import importlib.util  # noqa: PLC0415  (only here)

    try:
        return importlib.util.find_spec("docket") is not None
    except (ImportError, ValueError):  # hidden (sys.modules["docket"] = None), or broken
        return False


class MissingDocket(ElicitError):
    """A task's leg was queued, and Docket (the ``tasks`` extra) is not installed."""


class LegQueue:
    """The legs of one server's tasks on a Docket, and this process's worker for them.

    Args (of ``__init__``):
        runner: Runs one leg here (called by this process's worker).
        url: The Docket's Redis URL, or ``None`` for an embedded one of this process.
        name: The Docket's name (its keys' prefix on Redis), the same on every worker.
        resume_after: Seconds after which Docket gives a silent worker's leg to another.
    """

    def __init__(
        self,
        runner: LegRunner,
        *,
        url: str | None,
        name: str,
        resume_after: float,
    ) -> None:
        self._runner = runner
        # An embedded Docket is this queue's alone: a name of its own in this process.
        self.url = url or f"memory://elicitkit-{secrets.token_hex(6)}"
        self.name = name
        self.resume_after = resume_after
        self._docket: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._started: asyncio.Event | None = None
        self._worker: asyncio.Task[None] | None = None
        self._failure: BaseException | None = None

    async def put(self, task_id: str, leg: int) -> None:
        """Queue leg ``leg`` of task ``task_id`` (once: the same leg queued twice runs once).

        Raises:
            MissingDocket: Docket is not installed.
            Exception: Docket failed to start, or to take the leg (its Redis is down).
        """
        docket = await self._ready()
        # A key of its own each time: a leg queued again (orphaned by a dead worker) must not
        # wait behind its first message, which a shared Docket still holds for that worker.
        # Two messages of one leg are harmless: only one worker claims it (`TaskEngine.claim`).
        key = f"elicitkit:{task_id}:{leg}:{secrets.token_hex(4)}"
        await docket.add(_LEG_TASK, key=key)(task_id, leg)

    def warm(self) -> None:
        """Start this loop's worker now, for a Docket shared with other processes.

        A shared Docket redelivers a dead worker's legs to any live worker: one that has
        queued nothing yet must be running to take them. An embedded Docket holds only this
        process's legs, so it waits for the first (and Docket is not loaded before).
        """
        if self.shared and (self._worker is None or self._worker.done()):
            with contextlib.suppress(RuntimeError):  # no running loop: the first put starts it
                self._start(asyncio.get_running_loop())

    @property
    def shared(self) -> bool:
        """Whether the Docket is on Redis, shared by every worker of the server."""
        return not self.url.startswith("memory://")

    async def _ready(self) -> Any:
        """This loop's Docket, with its worker running (started at the first leg)."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop or self._worker is None or self._worker.done():
            self._start(loop)
        assert self._started is not None  # noqa: S101  (set by _start)
        await self._started.wait()
        if self._failure is not None:
            failure, self._failure = self._failure, None
            self._worker = None
            raise failure
        return self._docket

    def _start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._started = asyncio.Event()
        self._failure = None
        # In empty context variables: made inside a request, the worker (and every leg it
        # runs) would otherwise carry that request's, its caller's identity among them.
        worker = contextvars.Context().run(loop.create_task, self._work(self._started))
        self._worker = worker
        _WORKERS.add(worker)
        worker.add_done_callback(_WORKERS.discard)

    async def _work(self, started: asyncio.Event) -> None:
        """Open the Docket and run a worker on it until the loop ends."""
        try:
            from docket import Docket, Worker  # noqa: PLC0415  (the tasks extra, loaded late)
        except ImportError:
            self._failure = MissingDocket(
                f"This tool went on as a task, which needs Docket to run. {TASKS_EXTRA_HINT}"
            )
            started.set()
            return
        runner = self._runner

        async def elicitkit_task_leg(task_id: str, leg: int) -> None:
            await runner(task_id, leg)

        try:
            async with Docket(name=self.name, url=self.url) as docket:
                docket.register(elicitkit_task_leg, names=[_LEG_TASK])
                async with Worker(
                    docket,
                    redelivery_timeout=timedelta(seconds=self.resume_after),
                    schedule_automatic_tasks=False,
                ) as worker:
                    self._docket = docket
                    started.set()
                    await worker.run_forever()
        except Exception as error:
            if not started.is_set():
                self._failure = error
                started.set()
                return
            logger.exception("elicitkit's task worker (Docket %s) stopped", self.name)
        finally:
            self._docket = None


# Workers: referenced until done, or the event loop may collect them mid-run.
_WORKERS: set[asyncio.Task[None]] = set()


def redis_url_of(client: object) -> str | None:
    """The URL of a ``redis.asyncio.Redis`` client's server, for a Docket beside it.

    Read off the client's connection settings (a client keeps no URL): the host or socket,
    database, user and password (quoted, so that any character survives), and TLS. Other
    TLS settings (certificates) are not carried: give Docket's Redis by URL then.
    """
    pool: object = getattr(client, "connection_pool", None)
    found: object = getattr(pool, "connection_kwargs", None)
    if not isinstance(found, dict):
        return None
    kwargs = cast("dict[str, Any]", found)
    user, password = kwargs.get("username"), kwargs.get("password")
    auth = f"{quote(str(user or ''), safe='')}:{quote(str(password), safe='')}@" if password else ""
    db = kwargs.get("db", 0)
    if kwargs.get("path"):
        return f"unix://{auth}{kwargs['path']}?db={db}"
    host, port = kwargs.get("host", "localhost"), kwargs.get("port", 6379)
    # TLS is in the connection class alone (``ssl=True`` and ``rediss://`` both set it).
    connection: object = getattr(pool, "connection_class", None)
    tls = "SSL" in getattr(connection, "__name__", "")
    return f"{'rediss' if tls else 'redis'}://{auth}{host}:{port}/{db}"
