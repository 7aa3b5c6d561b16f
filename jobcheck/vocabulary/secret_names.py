"""Names that stand for a secret or a credential (SCL-21 secret-in-payload): a value
named ``password``, ``api_key``, ``access_token``, ``client_secret``, ``credentials``,
``settings.STRIPE_SECRET_KEY``, or a whole settings object.

Judged on the last part of a name as written (``user.password``,
``form.cleaned_data["password"]``, ``creds.api_key``): its words, so ``password_hash``
and ``reset_token`` count and ``password_reset_id``, ``has_password``, ``token_count``
and ``device_token`` (a push address, not a credential) do not.
"""

from __future__ import annotations

import re

from jobcheck.vocabulary.words import identifier_words

# Words that are a secret on their own.
_SECRET_WORDS = frozenset(
    {
        "password",
        "passwd",
        "passphrase",
        "secret",
        "secrets",
        "credential",
        "credentials",
        "apikey",
        "privatekey",
        "pwd",
    }
)
# "key" and "token" are secrets only with one of these before them (``api_key``,
# ``access_token``); a ``cache_key`` or a ``device_token`` is not.
_QUALIFIED = {
    "key": frozenset({"api", "secret", "private", "access", "signing", "encryption", "license"}),
    "token": frozenset(
        {"access", "refresh", "auth", "api", "bearer", "oauth", "session", "reset", "secret"}
        | {"personal", "bot", "github", "slack", "id", "verification", "magic", "login"}
    ),
}
# Last words that make the name a fact about the secret, not the secret.
_NOT_THE_SECRET = frozenset(
    {
        "id",
        "ids",
        "pk",
        "uuid",
        "url",
        "urls",
        "at",
        "count",
        "length",
        "changed",
        "expired",
        "expires",
        "required",
        "set",
        "enabled",
        "name",
        "names",
        "field",
        "fields",
        "policy",
        "form",
        "hint",
        "strength",
    }
)
_FLAG_PREFIXES = frozenset({"has", "is", "should", "can", "needs", "use", "uses", "with"})
# A whole configuration object: every secret of the project rides along.
SETTINGS_OBJECTS = frozenset(
    {"settings", "django.conf.settings", "app.config", "current_app.config", "os.environ"}
)
_SUBSCRIPT_KEY = re.compile(r"""\[\s*(?:['"]([^'"]{1,80})['"]|:(\w{1,80}))\s*\]\s*$""")
_LAST_NAME = re.compile(r"([A-Za-z_][A-Za-z0-9_]{0,80})\s*(?:\(\s*\))?\s*$")


def secret_name(text: str) -> str | None:
    """The secret a value's source text names (``password``, ``STRIPE_SECRET_KEY``), or
    None. ``text`` is an argument as written: a name, an attribute chain, a subscript
    with a string key (``data["password"]``, Ruby ``params[:api_key]``)."""
    stripped = text.strip()
    if stripped in SETTINGS_OBJECTS or stripped.endswith(".settings"):
        return stripped
    key = _SUBSCRIPT_KEY.search(stripped)
    name = (key.group(1) or key.group(2)) if key else None
    if name is None:
        last = _LAST_NAME.search(stripped)
        name = last.group(1) if last else None
    if name is None or stripped[:1] in "'\"":
        return None
    return name if is_secret_word(name) else None


def is_secret_word(name: str) -> bool:
    """Whether an identifier names a secret itself (see the module's docstring)."""
    words = identifier_words(name)
    if not words or words[-1] in _NOT_THE_SECRET or words[0] in _FLAG_PREFIXES:
        return False
    for index, word in enumerate(words):
        if word in _SECRET_WORDS:
            return True
        qualifiers = _QUALIFIED.get(word)
        if qualifiers and index > 0 and words[index - 1] in qualifiers:
            return True
    joined = "".join(words)
    return any(joined.endswith(word) for word in ("apikey", "accesstoken", "secretkey"))


# A bare ``token``/``code``/``otp`` is a credential when the job it goes to signs a user
# in or resets an account (``forgot_password.delay(email, uid, token)``).
_BARE_CREDENTIALS = frozenset({"token", "otp", "code", "pin", "magic_code", "one_time_code"})
_ACCOUNT_JOB_WORDS = frozenset(
    {
        "password",
        "reset",
        "magic",
        "login",
        "signin",
        "verify",
        "verification",
        "otp",
        "invite",
        "invitation",
        "activation",
        "activate",
        "confirm",
        "confirmation",
        "mfa",
        "2fa",
    }
)


def account_credential(text: str, job_name: str) -> str | None:
    """A bare ``token``/``code`` passed to a job that signs in, verifies or resets an
    account: the credential itself, or None."""
    last = _LAST_NAME.search(text.strip())
    name = last.group(1) if last else None
    if name is None or name.lower() not in _BARE_CREDENTIALS:
        return None
    return name if set(identifier_words(job_name)) & _ACCOUNT_JOB_WORDS else None
