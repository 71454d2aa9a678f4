"""Replay on MCP 2026-07-28, and at most once: SDK-free.

* `state`: questions, their keys and the answers carried across rounds in ``requestState``.
* `limits`: the caps on one dialogue.
* `store`, `sqlite_store`, `redis_store`: where a dialogue's outcome is recorded
  (`OutcomeStore`): in memory, in an SQLite file (the default) or in Redis.
* `once`: `AtMostOnce`, which claims a dialogue, runs its round and records the outcome, so
  a dialogue completes at most once; the SDK's result types come in from the integration.
"""
