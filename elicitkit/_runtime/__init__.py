"""Asking inside a call: what a tool author calls, and the call it runs in.

* `asking`: ``ask()``; `all_at_once`: ``ask_all()``; `oneliners`: ``confirm``, ``choose``,
  ``ask_text``; `missing_arguments`: ``@fill_missing``; `url_mode`: URL mode, and
  `url_routes` its URL routers (`sqlite_url_router` and `redis_url_router` for several
  processes).
* `delivery`: how a call's questions reach the user, one object per mode (mid-call,
  replaying, which a task's legs use too), each reading answers with `answers`.
* `tasks`: ``go_async()``; `task_engine`: the books of every task; `leg_queue`: the queue
  of their legs (Docket).
* `form_functions`: the public ``requested_schema``, ``parse_content`` and ``@form``, whose
  errors reach the client when they run inside a call.
* `context`: the call an ``ask()`` belongs to, and what an SDK integration provides for it
  (`entry` finds it; `keys` claims its questions' keys).
* `result`, `retries`, `timeouts`, `question_log`: the typed result, re-asking after an
  invalid answer, the answer clock, one log record per question.

It reads the compiler (`elicitkit._compiler`) and the replay machinery
(`elicitkit._replay`); it never imports an SDK integration, the CLI or the testing kit.
"""
