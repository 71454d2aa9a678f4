"""Which field names ask for a secret: the vocabulary, and how a name is matched against it.

MCP forbids asking for passwords, API keys, access tokens and payment credentials in form
mode: what a user types into a form passes through the client and often the model. A
field is refused when its Python name or its wire key (a pydantic alias, a msgspec
rename) matches, so ``password: str = Field(alias="pw")`` and
``pw: str = Field(alias="password")`` are both caught.

Names are compared word by word (snake_case and camelCase split), so ``secretary``,
``spin``, ``pinned_message`` and ``passport_country`` pass while ``pin`` and ``newPin``
do not. Decided, not found in a list:

* ``token`` is a credential only as the name's last word (``access_token``, ``token``):
  ``token_count``, ``token_limit`` and ``max_tokens`` count tokens of text.
* IBAN, account and routing numbers are not refused: they identify an account to pay
  into and are printed on invoices and cheques; knowing one does not let anyone pay.
  Card numbers, CVC/CVV and PINs do, and are refused.
* ``secret`` is refused wherever it is a word (``secret_santa`` too: opt out with
  ``FormField(sensitive=False)``).
"""

from __future__ import annotations

from collections.abc import Sequence

# Credential words and phrases, written as their words joined (the matcher tries one,
# two and three consecutive words of the name). Plural names match too ("passwords").
SECRET_WORDS = frozenset(
    {
        # passwords and their kin
        "password",
        "passwd",
        "pwd",
        "passphrase",
        "passcode",
        "pin",
        "pincode",
        "secret",
        "credential",
        "securityanswer",
        # one-time and recovery codes
        "otp",
        "totp",
        "hotp",
        "onetimecode",
        "onetimepassword",
        "verificationcode",
        "mfacode",
        "2facode",
        "twofactorcode",
        "authcode",
        "authorizationcode",
        "recoverycode",
        "backupcode",
        # keys and tokens
        "apikey",
        "privatekey",
        "secretkey",
        "accesskey",
        "signingkey",
        "encryptionkey",
        "sessionkey",
        "sessionid",
        "bearer",
        "seedphrase",
        "recoveryphrase",
        "mnemonic",
        # payment cards and identity numbers
        "creditcard",
        "debitcard",
        "cardnumber",
        "cvv",
        "cvc",
        "securitycode",
        "ssn",
        "socialsecuritynumber",
        "socialinsurancenumber",
    }
)

# Words that are a credential only as the name's last word (its head noun).
SECRET_HEAD_WORDS = frozenset({"token"})


def find_secret(words: Sequence[str]) -> str | None:
    """Return the credential words found in a name's lower-case words, or ``None``.

    Args:
        words: The name split into lower-case words (``["new", "pin"]``).

    Returns:
        The matching words as written in the name, joined by spaces (``"api key"``).
    """
    for start in range(len(words)):
        for size in (1, 2, 3):
            part = words[start : start + size]
            if len(part) == size and _singular("".join(part)) in SECRET_WORDS:
                return " ".join(part)
    if words and words[-1] in SECRET_HEAD_WORDS:
        return words[-1]
    return None


def _singular(word: str) -> str:
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word
