"""Driving the web client (web/) in Chromium: a Chromium with its console and network logged, and
a player who plays a whole deal by clicking cards and buttons. Shared by tests/browser/
test_web_client.py and bench/web_client.py."""

import json
import tempfile
import time
import urllib.request
from pathlib import Path

from selenium import webdriver
from selenium.common.exceptions import (
    ElementClickInterceptedException,
    ElementNotInteractableException,
    JavascriptException,
    NoSuchElementException,
    StaleElementReferenceException,
)
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
# Headless Debian Chromium with nothing of its own on the network (the tests assert every request
# the page makes goes to the server under test).
HEADLESS_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DESKTOP = (1280, 900)
PHONE = (390, 844)
JOKERS = {"BJ", "SJ", "BJ*", "SJ*"}
# Window answers the player picks first: the quiet ones, so the deal keeps its usual course.
PREFERRED = ("accept", "stay", "pass", "decline")
FLAKY = (
    StaleElementReferenceException,
    ElementClickInterceptedException,
    ElementNotInteractableException,
    NoSuchElementException,
)


def chromium(size: tuple[int, int]) -> webdriver.Chrome:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        *HEADLESS_FLAGS,
        "--hide-scrollbars",
        f"--window-size={size[0]},{size[1]}",
        f"--user-data-dir={tempfile.mkdtemp(prefix='bh-chromium-')}",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.implicitly_wait(0)
    set_viewport(driver, size)
    return driver


def set_viewport(driver, size: tuple[int, int]) -> None:
    # Headless Chromium keeps its window at least 500 px wide: a phone's 390 px is emulated.
    driver.set_window_size(max(size[0], 500), size[1])
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": size[0] < 500},
    )


def wait(driver, condition, timeout: float = 30, message: str = ""):
    return WebDriverWait(driver, timeout, poll_frequency=0.1, ignored_exceptions=FLAKY).until(
        condition, message
    )


def play_key(code: str) -> str:
    # docs/engine.md "Listing": suits carry nothing, jokers (marked or not) are themselves.
    return code if code in JOKERS else code[0]


def start_quick_match(driver, base: str, *, language: str = "en") -> int:
    driver.get(f"{base}/")
    if language != "en":
        Select(driver.find_element(By.ID, "lang-select")).select_by_value(language)
        wait(driver, lambda d: d.find_element(By.TAG_NAME, "html").get_attribute("lang") == language)
    wait(driver, lambda d: d.find_element(By.ID, "guest")).click()
    wait(driver, lambda d: d.find_element(By.ID, "quick-match")).click()
    wait(driver, lambda d: "/play/" in d.current_url, 60, "no table after the quick match")
    return int(driver.current_url.rstrip("/").rsplit("/", 1)[1])


def _state(driver) -> dict:
    return driver.execute_script(
        """
        const hand = document.getElementById("hand");
        return {
          over: !!document.getElementById("final-title"),
          plays: hand && hand.dataset.plays ? JSON.parse(hand.dataset.plays) : [],
          codes: hand ? [...hand.querySelectorAll(".card")].map((c) => c.dataset.code) : [],
          actions: [...document.querySelectorAll("#actions [data-action]")].map((b) => b.dataset.action),
          trustee: !!document.getElementById("trustee-back"),
        };
        """
    )


def _click_play(driver, cards: list[str], codes: list[str]) -> None:
    chosen, used = [], set()
    for need in sorted(map(play_key, cards)):
        index = next(i for i, code in enumerate(codes) if i not in used and play_key(code) == need)
        used.add(index)
        chosen.append(index)
    hand_cards = driver.find_elements(By.CSS_SELECTOR, "#hand .card")
    for index in chosen:
        hand_cards[index].click()
    button = driver.find_element(By.ID, "play")
    if button.is_enabled():
        button.click()


def play_to_the_end(driver, *, timeout: float = 420, on_move=None) -> int:
    """Click through the deal: the first legal play (its cards, then Play), else a window's answer.
    Returns the number of moves made."""
    moves = 0
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            state = _state(driver)
            if state["over"]:
                return moves
            if state["trustee"]:
                driver.find_element(By.ID, "trustee-back").click()
            elif state["plays"]:
                _click_play(driver, state["plays"][0], state["codes"])
                moves += 1
            elif state["actions"]:
                choice = next((a for a in PREFERRED if a in state["actions"]), state["actions"][0])
                driver.find_element(By.CSS_SELECTOR, f"#actions [data-action={choice}]").click()
                moves += 1
            else:
                time.sleep(0.15)
                continue
            if on_move:
                on_move(moves)
            # The answer redraws the page; wait for it before reading again.
            time.sleep(0.25)
        except (*FLAKY, JavascriptException, StopIteration):
            time.sleep(0.1)
    raise AssertionError("the deal did not end in the browser")


def console_errors(driver) -> list[dict]:
    """Errors in the console. A 409 answer is the API telling the client the game moved on (a
    stale version, a turn that passed); the client reads its view again, and Chromium logs the
    answer's status all the same. Django's admin pages name no icon, so Chromium asks for
    /favicon.ico and logs its 404. The home page asks `push/vapid-key` whether the server has Web
    Push, and a 404 says it has not (web/static/web/push.js). None is an error of a page."""

    def expected(entry: dict) -> bool:
        message = entry["message"]
        vapid_off = "/api/v1/push/vapid-key" in message and "status of 404" in message
        return entry.get("source") == "network" and (
            "status of 409" in message or "/favicon.ico" in message or vapid_off
        )

    return [
        entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE" and not expected(entry)
    ]


def csp_violations(driver) -> list[str]:
    """What the page's Content-Security-Policy refused since the console was last read: Chromium
    logs each refusal ("Refused to load …", "Refused to execute …", "Refused to apply …") naming the
    policy."""
    messages = [entry["message"] for entry in driver.get_log("browser")]
    return [message for message in messages if "Content Security Policy" in message]


def requested_urls(performance_log: list[dict]) -> list[str]:
    urls = []
    for entry in performance_log:
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            url = message["params"]["request"]["url"]
            # Chromium's own pages (chrome://) are not the page's requests.
            if not url.startswith("chrome"):
                urls.append(url)
    return urls


def horizontal_overflow(driver) -> int:
    return driver.execute_script(
        "return Math.max(document.documentElement.scrollWidth, document.body.scrollWidth) - window.innerWidth"
    )


def api(base: str, method: str, path: str, token: str | None = None, body: dict | None = None) -> dict:
    request = urllib.request.Request(
        f"{base}/api/v1/{path}",
        data=json.dumps(body).encode() if body is not None else None,
        method=method,
        headers={
            "Content-Type": "application/json",
            **({"Authorization": f"Bearer {token}"} if token else {}),
        },
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read() or b"{}")


def other_views(driver, base: str, game_id: int, folder: Path) -> None:
    """The finished deal's pages (final view, replay, home) at both sizes in both languages, for
    docs/screenshots (docs/web-client.md)."""
    for size, size_name in ((DESKTOP, "desktop"), (PHONE, "phone")):
        set_viewport(driver, size)
        for language in ("en", "zh-hans"):
            driver.add_cookie({"name": "django_language", "value": language, "path": "/"})
            for page, path, ready in (
                ("final", f"/play/{game_id}", "scores"),
                ("replay", f"/replay/{game_id}", "replay-end"),
                ("home", "/", "quick-match"),
            ):
                driver.get(f"{base}{path}")
                wait(driver, lambda d, ready=ready: d.find_element(By.ID, ready))
                if page == "replay":
                    for _ in range(8):
                        driver.find_element(By.ID, "replay-forward").click()
                shot(driver, folder, f"{size_name}-{language}-{page}")
                assert horizontal_overflow(driver) <= 0, (size_name, language, page)


def shot(driver, folder: Path, name: str) -> Path:
    path = folder / f"{name}.png"
    driver.save_screenshot(str(path))
    return path


AXE = Path(__file__).resolve().parent / "axe" / "node_modules" / "axe-core" / "axe.min.js"
# WCAG 2.2 A and AA (axe-core's tags); axe's own "best practice" rules are not part of it.
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]


def axe_violations(driver, *, impacts=("serious", "critical")) -> list[dict]:
    """axe-core (pinned in tests/browser/axe/package-lock.json; scripts/test installs it) run on the
    page as it is now: the violations of `impacts`, each with its rule id and the nodes it found."""
    if not driver.execute_script("return !!window.axe"):
        # Through DevTools, which the page's Content-Security-Policy does not govern.
        driver.execute_script(AXE.read_text())
    driver.set_script_timeout(60)
    result = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {runOnly: {type: 'tag', values: arguments[0]}})"
        ".then((r) => done(r.violations),"
        " (e) => done([{id: 'axe-error', impact: 'critical', help: String(e), nodes: []}]));",
        AXE_TAGS,
    )
    return [
        {"id": v["id"], "impact": v["impact"], "help": v["help"], "nodes": [n["target"] for n in v["nodes"]]}
        for v in result
        if v["impact"] in impacts
    ]
