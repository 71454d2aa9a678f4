"""The form compiler: a Python type -> one `FormSpec` -> each era's schema and decoder.

Nothing here knows about a tool call, an SDK or a terminal: it turns types into forms and
answers into values, and raises `FormDefinitionError` for a type it cannot express.

* reading a type into a `form_spec.FormSpec`, in the order a type meets them:
  `field_sources` (which fields a dataclass, pydantic model, Struct or TypedDict declares),
  `type_hints` (the only module that reads annotations), `field_settings` (metadata from
  every vocabulary), `classify` (which wire kind a type becomes), `choices` (Enum/Literal
  options and labels), `field_checks` (constraints, no secrets), and `introspect`
  (`inspect_form`, which assembles them).
* `markers`: elicitkit's own per-field settings (`FormField`, `Email`, `Uri`).
* `names`, `secret_names`, `nesting`: titles, the secret vocabulary, nested forms.
* `render`, `prefill`: `FormSpec` + protocol version -> the wire ``requestedSchema``.
* `decode`, `wire_formats`: a client's untrusted answer -> the author's type, linear time.
* `overrides`: one call's options, defaults and titles applied to a compiled form.
* `compiled_forms`: the compile cache; `prepared_form`: one form as one question asks it
  (schema, rendered question, decoder), what the runtime holds for a whole question.
"""
