"""The web client (web/, docs/web-client.md) in a real headless Chromium against the whole service
as `scripts/start` runs it (tests/browser/live.py): a guest opens /, takes a quick match and plays a
whole deal against bots by clicking cards and buttons, at desktop size in English and at phone size
(390 × 844) in Chinese; a moderator then steps a reported deal's replay in the admin to its end.

Every page: five seats, no horizontal scrolling on the phone, no console error, no request to
another origin. Screenshots go to the folder printed at the start (`pytest -s`)."""

import importlib.util
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from tests.browser import webclient
from tests.browser.live import LiveService

MODERATOR_PASSWORD = "mod-pass-123"
BENCH = Path(__file__).resolve().parent.parent.parent / "bench" / "web_client.py"


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    live = LiveService(tmp_path_factory.mktemp("web-client")).start()
    live.deals = {}
    try:
        yield live
    finally:
        live.stop()


def _open(size):
    for binary in (webclient.CHROMIUM, webclient.CHROMEDRIVER):
        if not Path(binary).exists():
            pytest.fail(
                f"{binary} is missing: apt-get install -y chromium chromium-driver (scripts/test does)"
            )
    return webclient.chromium(size)


@pytest.mark.parametrize(
    ("size", "language", "name"),
    [(webclient.DESKTOP, "en", "desktop-en"), (webclient.PHONE, "zh-hans", "phone-zh-hans")],
)
def test_a_guest_plays_a_whole_deal_against_bots_by_clicking(service, screenshots_dir, size, language, name):
    driver = _open(size)
    try:
        game_id = webclient.start_quick_match(driver, service.url, language=language)
        webclient.wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#seats .seat")) == 5)
        webclient.wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#hand .card"))
        webclient.shot(driver, screenshots_dir, f"{name}-table")
        assert webclient.horizontal_overflow(driver) <= 0
        if language == "zh-hans":
            head = driver.find_element(By.ID, "table-head").text
            # The phase and the buttons in Chinese (config/locale), the rule words as players say them.
            assert any(word in head for word in ("选皇帝", "表态", "出牌阶段", "叫保子牌")), head
            assert "首页" in head

        def reload_once(moves):
            # The page survives a reload mid-deal: the same table, drawn again from the API.
            if moves == 3:
                driver.refresh()
                webclient.wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#seats .seat")) == 5)

        moves = webclient.play_to_the_end(driver, on_move=reload_once)
        assert moves > 0
        webclient.wait(driver, lambda d: d.find_element(By.ID, "scores"))
        rows = driver.find_elements(By.CSS_SELECTOR, "#scores tbody tr")
        assert len(rows) == 5
        webclient.shot(driver, screenshots_dir, f"{name}-final")
        assert webclient.horizontal_overflow(driver) <= 0

        # The replay of the deal, stepped to its end from the client.
        driver.find_element(By.ID, "replay-link").click()
        webclient.wait(driver, lambda d: d.find_element(By.ID, "replay-end")).click()
        webclient.wait(driver, lambda d: d.find_element(By.ID, "replay-forward").get_attribute("disabled"))
        assert len(driver.find_elements(By.CSS_SELECTOR, "#replay .replay-seat")) == 5
        webclient.shot(driver, screenshots_dir, f"{name}-replay")
        assert webclient.horizontal_overflow(driver) <= 0
        if language == "zh-hans":
            assert "回放" in driver.find_element(By.TAG_NAME, "main").text

        assert webclient.console_errors(driver) == []
        urls = webclient.requested_urls(driver.get_log("performance"))
        assert urls and all(url.startswith((service.url, "data:")) for url in urls), urls
        token = driver.execute_script("return localStorage.getItem('bh.token')")
        service.deals[name] = (game_id, token)
        if language == "en":
            # The same finished deal's pages at both sizes in both languages (docs/screenshots).
            webclient.other_views(driver, service.url, game_id, screenshots_dir)
            assert webclient.console_errors(driver) == []
    finally:
        driver.quit()


def _a_finished_deal(service) -> tuple[int, str]:
    if service.deals:
        return next(iter(service.deals.values()))
    # Run alone: a guest plays one in the browser first.
    driver = _open(webclient.DESKTOP)
    try:
        game_id = webclient.start_quick_match(driver, service.url)
        webclient.play_to_the_end(driver)
        return game_id, driver.execute_script("return localStorage.getItem('bh.token')")
    finally:
        driver.quit()


def test_a_moderator_steps_a_reported_deals_replay_to_its_end(service, screenshots_dir):
    game_id, token = _a_finished_deal(service)
    game = webclient.api(service.url, "GET", f"games/{game_id}/final", token)
    table = webclient.api(service.url, "GET", f"tables/{game['table_id']}", token)
    reported_seat = next(s["seat"] for s in table["seats"] if s["user"]["is_bot"])
    report = webclient.api(
        service.url,
        "POST",
        "reports",
        token,
        {"user": table["seats"][reported_seat]["user"]["id"], "game": game_id, "reason": "cheating"},
    )
    service.manage(
        "shell",
        "-c",
        "from django.contrib.auth.models import Group; from accounts.models import User; "
        f"u = User.objects.create_user(username='moderator', password='{MODERATOR_PASSWORD}', "
        "is_staff=True); u.groups.add(Group.objects.get(name='moderators'))",
    )
    driver = _open(webclient.DESKTOP)
    try:
        driver.get(f"{service.url}/admin/login/")
        driver.find_element(By.NAME, "username").send_keys("moderator")
        driver.find_element(By.NAME, "password").send_keys(MODERATOR_PASSWORD)
        driver.find_element(By.CSS_SELECTOR, "input[type=submit]").click()
        webclient.wait(driver, lambda d: "/admin/login" not in d.current_url)
        driver.get(f"{service.url}/admin/matchmaking/report/{report['id']}/change/")
        webclient.wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, "a.report-replay-link")).click()
        webclient.wait(driver, lambda d: d.find_element(By.ID, "replay-board"))
        assert str(reported_seat) in driver.find_element(By.ID, "replay-report").text
        # All five hands from the deal, the reported seat highlighted.
        seats = driver.find_elements(By.CSS_SELECTOR, "#replay-board .replay-seat")
        assert len(seats) == 5 and "reported" in seats[reported_seat].get_attribute("class")
        assert len(driver.find_elements(By.CSS_SELECTOR, "#replay-board .card")) == sum(
            map(len, game["hands"])
        )
        webclient.shot(driver, screenshots_dir, "admin-replay-start")
        forward = driver.find_element(By.ID, "replay-forward")
        steps = len(driver.find_elements(By.CSS_SELECTOR, "#replay-steps li"))
        assert steps == len(game["actions"])
        for _ in range(min(steps, 5)):
            forward.click()
        assert driver.find_element(By.ID, "replay-step").text.startswith("5 /") or steps < 5
        driver.find_element(By.ID, "replay-back").click()
        driver.find_element(By.ID, "replay-end").click()
        assert driver.find_element(By.ID, "replay-step").text == f"{steps} / {steps}"
        assert forward.get_attribute("disabled")
        assert driver.find_element(By.CSS_SELECTOR, "#replay-steps li.current").get_attribute(
            "data-step"
        ) == str(steps)
        webclient.shot(driver, screenshots_dir, "admin-replay-end")
        assert webclient.console_errors(driver) == []
    finally:
        driver.quit()


def _bench():
    spec = importlib.util.spec_from_file_location("bench_web_client", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bench_web_client_smoke(service):
    """bench/web_client.py's tiny run: a first load and a few seconds of a deal followed."""
    bench = _bench()
    figures = bench.measure(service.url, deal_timeout=4)
    # The page, its modules, its stylesheet and its API reads: more than the view alone, and within
    # the budget (docs/web-client.md).
    assert figures["view_bytes"] < figures["first_load_bytes"] < bench.FIRST_LOAD_BUDGET
    assert figures["events"] > 0 and figures["busy_ms"] > 0
    assert "KB over the wire" in bench.report(figures)
