"""The form compiler: a Python type -> one `FormSpec` -> each era's schema and decoder.

Nothing here knows about a tool call, an SDK or a terminal: it turns types into forms and
answers into values, and raises `FormDefinitionError` for a type it cannot express.

* `type_hints`, `field_sources`, `field_settings`, `field_checks`, `choices`, `introspect`:
  reading a type (the only place that reads type hints) into a `form_spec.FormSpec`.
* `markers`: elicitkit's own per-field settings (`FormField`, `Email`, `Uri`).
* `names`, `secret_names`, `nesting`: titles, the secret vocabulary, nested forms.
* `render`, `prefill`: `FormSpec` + protocol version -> the wire ``requestedSchema``.
* `decode`, `wire_formats`: a client's untrusted answer -> the author's type, linear time.
* `overrides`: one call's options, defaults and titles applied to a compiled form.
* `compiled_forms`: the compile cache, and the prepared form the runtime asks with.
"""
