"""No secrets in forms: credential-like fields are refused and pointed to URL mode."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
import pydantic
import pytest

from elicitkit import FormDefinitionError, FormField, requested_schema
from tests.forms import one_field_form

URL_MODE_ADVICE = (
    "MCP forbids asking for secrets (passwords, API keys, tokens, one-time codes, payment card "
    "data) in form mode. Collect it on a page you control, opened with URL-mode "
    "elicitation: 'answer = await elicitkit.url.ask_url(\"Sign in to Acme\", page_url)' in the "
    "tool, then 'await elicitkit.url.complete_url(answer.content)' from the page's callback"
)
URL_MODE_HINT = (
    f", and {URL_MODE_ADVICE}, or mark the field FormField(sensitive=False) if it holds no secret."
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
        # the wider vocabulary
        ("pin", "pin"),
        ("newPin", "pin"),
        ("card_pin", "pin"),
        ("pin_code", "pin"),
        ("otp", "otp"),
        ("otp_code", "otp"),
        ("totp", "totp"),
        ("one_time_code", "one time code"),
        ("verification_code", "verification code"),
        ("mfa_code", "mfa code"),
        ("two_factor_code", "two factor code"),
        ("recovery_codes", "recovery codes"),
        ("passcode", "passcode"),
        ("passphrase", "passphrase"),
        ("wifi_pwd", "pwd"),
        ("bearer", "bearer"),
        ("bearer_token", "bearer"),
        ("refresh_token", "token"),
        ("sessionToken", "token"),
        ("auth_token", "token"),
        ("session_id", "session id"),
        ("secret_key", "secret"),
        ("signing_key", "signing key"),
        ("seed_phrase", "seed phrase"),
        ("mnemonic", "mnemonic"),
        ("social_security_number", "social security number"),
        ("cvc", "cvc"),
        ("card_cvv2", "cvv"),
        ("my2faCode", "2 fa code"),
        ("security_code", "security code"),
        ("debit_card", "debit card"),
        ("credentials", "credentials"),
        ("security_answer", "security answer"),
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
    "name",
    [
        "classname",
        "passport_number",
        "username",
        "email",
        "tokenizer_mode_x",
        "access",
        # names the wider vocabulary must still let through
        "token_count",
        "max_tokens",
        "token_limit",
        "secretary",
        "passport_country",
        "spin",
        "pinned_message",
        "spinner_style",
        "zip_code",
        "country_code",
        "promo_code",
        "session_length",
        "iban",
        "routing_number",
        "account_number",
        "primary_key",
        "sort_key",
        "keyboard",
        "opinion",
    ],
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
        f"{URL_MODE_ADVICE}."
    )


class _AliasedName(pydantic.BaseModel):
    pw: str = pydantic.Field(alias="password")


class _AliasedPassword(pydantic.BaseModel):
    password: str = pydantic.Field(alias="pw")


class _RenamedStruct(msgspec.Struct, rename={"code": "api_key"}):
    code: str


class _OrdinaryAlias(pydantic.BaseModel):
    count: int = pydantic.Field(alias="token_count")


@pytest.mark.parametrize(
    ("form_type", "reason"),
    [
        pytest.param(
            _AliasedName,
            "Cannot build a form field for 'pw' of _AliasedName: its wire key 'password' "
            "suggests a secret (password)",
            id="pydantic alias",
        ),
        pytest.param(
            _AliasedPassword,
            "Cannot build a form field for 'password' of _AliasedPassword: its name suggests "
            "a secret (password)",
            id="python name behind an innocent alias",
        ),
        pytest.param(
            _RenamedStruct,
            "Cannot build a form field for 'code' of _RenamedStruct: its wire key 'api_key' "
            "suggests a secret (api key)",
            id="msgspec rename",
        ),
    ],
)
def test_the_wire_key_is_checked_too(form_type: Any, reason: str) -> None:
    with pytest.raises(FormDefinitionError) as caught:
        requested_schema(form_type)
    assert str(caught.value) == reason + URL_MODE_HINT


def test_an_ordinary_wire_key_passes() -> None:
    assert list(requested_schema(_OrdinaryAlias)["properties"]) == ["token_count"]


def test_an_opt_out_covers_the_wire_key() -> None:
    class Model(pydantic.BaseModel):
        code: Annotated[str, FormField(sensitive=False)] = pydantic.Field(alias="pin")

    assert list(requested_schema(Model)["properties"]) == ["pin"]
