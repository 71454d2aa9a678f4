"""Static typing contract of ``go_async()`` and the task stores (issue 21).

Only type-checked (mypy and pyright, strict), never executed.
"""

from __future__ import annotations

from typing_extensions import assert_type

from elicitkit import go_async, install
from elicitkit.stores import MemoryTaskStore, TaskRecord, TaskStore


async def body() -> None:
    assert_type(await go_async(), bool)
    assert_type(await go_async("Rendering", required=True), bool)


async def stores(server: object) -> None:
    store: TaskStore = MemoryTaskStore()
    assert_type(install(server, tasks=store), object)
    found = await store.get("task")
    assert_type(found, TaskRecord | None)
