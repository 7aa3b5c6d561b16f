"""The progress bar: only for a person at a terminal, only for long runs."""

from __future__ import annotations

import io

import pytest

from jobcheck import progress


def test_no_bar_when_output_is_piped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdout", io.StringIO())
    with progress.progress_bar() as bar:
        assert bar is None


def test_no_bar_in_ci_or_machine_readable_output(monkeypatch: pytest.MonkeyPatch) -> None:
    with progress.progress_bar(enabled=False) as bar:
        assert bar is None
    monkeypatch.setenv("CI", "true")
    assert not progress.wanted()


def test_bar_appears_only_after_the_delay(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [100.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: now[0])
    started: list[int] = []

    class Bar(progress._DelayedBar):
        def _start(self, total: int) -> None:
            started.append(total)
            self._progress = type("Fake", (), {"update": lambda *a, **k: None})()

    bar = Bar()
    bar(1, 10)
    assert not started
    now[0] += progress.DELAY + 0.1
    bar(2, 10)
    assert started == [10]
