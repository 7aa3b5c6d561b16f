"""Word matching for SCL-20: configured words match whole words of a job's name."""

from __future__ import annotations

import pytest

from jobcheck.vocabulary.words import identifier_words, matching_word


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("send_password_reset", ["send", "password", "reset"]),
        ("sendPasswordReset", ["send", "password", "reset"]),
        ("SignInCode", ["sign", "in", "code"]),
        ("accounts.tasks.send-otp", ["accounts", "tasks", "send", "otp"]),
        ("send_2fa_code", ["send", "2fa", "code"]),
        ("HTTPExport", ["http", "export"]),
    ],
)
def test_identifier_words(name: str, words: list[str]) -> None:
    assert identifier_words(name) == words


@pytest.mark.parametrize(
    ("name", "phrase", "matches"),
    [
        ("build_report", "report", True),
        ("weekly_reports", "report", True),
        ("update_reporter_id", "report", False),
        ("preset_prices", "reset", False),
        ("send_signin_link", "sign_in", True),
        ("SendSignInLink", "sign_in", True),
        ("send_sign_in_link", "signin", True),
        ("send_2FA_code", "2fa", True),
        ("send2FACode", "2fa", True),
        ("clean_up_sessions", "cleanup", True),
        ("send_magic_link_email", "magic_link", True),
        ("send_magic_email", "magic_link", False),
        ("syncing", "sync", False),
    ],
)
def test_matching_word(name: str, phrase: str, matches: bool) -> None:
    assert (matching_word(name, [phrase]) == phrase) is matches
