"""What we know about MCP clients, shared by the testing kit and the command line.

* `facts`: what real clients do with forms (the table behind test profiles and ``check``).
* `spec_keys`: the keys the spec allows in a ``requestedSchema``, per version.
* `untouched`: what a form that always fills its inputs sends for an untouched field.
* `tuned_client`: the SDK's client, able to offer 2025-06-18 and form mode only.
* `tasks`: the Tasks extension's client side: raw ``tasks/*``, and following a task.

Core code (compiler, runtime, replay, integrations) never imports it.
"""
