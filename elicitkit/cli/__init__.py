"""Everything behind ``python -m elicitkit`` (``schema``, ``check``, ``try``, ``demo``).

* `main`: the argument parser; `form_loader`: ``MODULE[:NAME]`` -> form types.
* `check`: definition errors and client warnings; `try_server`: call any stdio server's
  tool and fill its forms here; `task_follower`: ``try`` follows a task the call becomes;
  `demo`, `demo_server`: the demo's client and server.
* `schema_reader`: a client's reading of a ``requestedSchema``; `terminal_form`: one
  prompt per field, checked as the user types (prompt_toolkit, the ``cli`` extra: only
  ``try`` and the demo at a terminal import it).

Nothing outside this package imports it.
"""
