"""No secrets in forms: credential-like fields are refused and pointed to URL mode."""

from __future__ import annotations

from typing import Annotated, Any

import pydantic
import pytest

from elicitkit import FormDefinitionError, FormField, requested_schema
from tests.forms import one_field_form

URL_MODE_HINT = (
    ", and MCP forbids asking for secrets (passwords, API keys, tokens, payment data) in form "
    "mode. Ask for it through URL mode instead, or mark the field FormField(sensitive=False) if "
    "it holds no secret."
)


@pytest.mark.parametrize(
    ("name", "word"),
    [
        ("password", "password"),
        ("new_password", "password"),
        ("passwd", "passwd"),
        ("client_secret", "secret"),
        ("token", "token"),
        ("accessToken", "token"),
        ("api_key", "api key"),
        ("apiKey", "api key"),
        ("API_KEY", "api key"),
        ("apikey", "apikey"),
        ("private_key", "private key"),
        ("aws_access_key", "access key"),
        ("credit_card", "credit card"),
        ("card_number", "card number"),
        ("cvv", "cvv"),
        ("ssn", "ssn"),
        ("passwords", "passwords"),
    ],
)
def test_credential_names_are_refused(name: str, word: str) -> None:
    with pytest.raises(FormDefinitionError) as caught:
        requested_schema(one_field_form(str, name=name))
    assert str(caught.value) == (
        f"Cannot build a form field for '{name}' of Form: its name suggests a secret ({word})"
        + URL_MODE_HINT
    )


@pytest.mark.parametrize(
    "name", ["classname", "passport_number", "username", "email", "tokenizer_mode_x", "access"]
)
def test_ordinary_names_pass(name: str) -> None:
    # `tokenizer` is not `token`; `classname` contains "ssn" only inside a word.
    assert name in requested_schema(one_field_form(str, name=name))["properties"]


def test_false_positive_opt_out() -> None:
    form = one_field_form(Annotated[int, FormField(sensitive=False)], name="token_count")
    assert requested_schema(form)["properties"] == {
        "token_count": {"type": "integer", "title": "Token count"}
    }


def test_explicitly_sensitive_field_is_refused() -> None:
    form = one_field_form(Annotated[str, FormField(sensitive=True)], name="mothers_maiden_name")
    with pytest.raises(FormDefinitionError) as caught:
        requested_schema(form)
    assert str(caught.value) == (
        "Cannot build a form field for 'mothers_maiden_name' of Form: it is marked sensitive"
        + URL_MODE_HINT
    )


@pytest.mark.parametrize("secret_type", [pydantic.SecretStr, pydantic.SecretBytes])
def test_secret_types_are_refused_whatever_the_name(secret_type: Any) -> None:
    form = one_field_form(Annotated[secret_type, FormField(sensitive=False)], name="pin")
    with pytest.raises(FormDefinitionError) as caught:
        requested_schema(form)
    assert str(caught.value) == (
        f"Cannot build a form field for 'pin' of Form: {secret_type.__name__} holds a secret, and "
        "MCP forbids asking for secrets (passwords, API keys, tokens, payment data) in form "
        "mode. Ask for it through URL mode instead, on a page you control."
    )
