"""``install()``'s options, defined once: what every installer takes and passes on.

`elicitkit.install` is the one public signature that spells them out (with its docstring);
it gathers them into `InstallOptions`, which the installer of each server SDK takes.
tests/test_router.py checks that the signature and these fields stay the same keywords
with the same defaults.
"""

from __future__ import annotations

from dataclasses import dataclass

from elicitkit._replay.limits import ReplayLimits
from elicitkit._replay.store import OutcomeStore
from elicitkit._replay.tasks import TaskStore
from elicitkit._runtime.unsupported import OnUnsupported
from elicitkit._runtime.url_routes import UrlRouter


@dataclass(frozen=True)
class InstallOptions:
    """The keyword options of `elicitkit.install`, as given (see its docstring for each).

    Attributes:
        store: Where completed dialogues are recorded (``None``: the default).
        limits: The caps on one dialogue (``None``: ``ReplayLimits()``).
        url_router: Where URL-mode url_router are routed (``None``: the default).
        tasks: Where the tasks of ``go_async()`` are kept (``None``: the default).
        on_unsupported: What ``ask()`` does when the client cannot show forms, unchecked
            (each installer checks it, so a bad value is refused with the same message).
        task_resume_after: Seconds after which a silent worker's leg runs elsewhere
            (``None``: ``$ELICITKIT_TASK_RESUME_AFTER``, else the default).
    """

    store: OutcomeStore | None = None
    limits: ReplayLimits | None = None
    url_router: UrlRouter | None = None
    tasks: TaskStore | None = None
    on_unsupported: OnUnsupported = "raise"
    task_resume_after: float | None = None
