"""The web client's budgets (docs/web-client.md "Tests and budgets"), measured in headless Chromium
against the whole service as `scripts/start` runs it (tests/browser/live.py):

* first load: bytes over the wire for the table page (`/play/<game>`, an empty cache: the document,
  the modules, the stylesheet and the API reads it makes), from the Network events of Chromium's
  performance log. Budget 200 KB. Baseline: the API's own view of the deal (`GET games/{id}`).
* CPU per received event: the page's main-thread task time (Chromium's performance metric
  `TaskDuration`, DevTools' Performance.getMetrics) while it follows a deal played by the server (the
  guest's seat on 托管), divided by the events the deal's log gained meanwhile. Budget 2 ms.
  Baselines: the same page's task time per second while nothing happens (the deadline countdown),
  over as many seconds; and the same figures for the client of `--baseline` (default
  BASELINE_CLIENT, the last client that read the whole view again on every event), run from that
  commit's tree (bench/support.py `baseline_tree`) in the same run, one after the other.

    python bench/web_client.py [--baseline COMMIT | --no-baseline]
"""

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.support import baseline_tree  # noqa: E402
from tests.browser import webclient  # noqa: E402
from tests.browser.live import LiveService  # noqa: E402

FIRST_LOAD_BUDGET = 200 * 1024
CPU_PER_EVENT_BUDGET_MS = 2.0
# The client before it applied the log's events to its table (web/static/web/table.js read
# `GET games/{id}` on every event): issue 41 item 6.
BASELINE_CLIENT = "e4440d1"


def _messages(log: list[dict]) -> list[dict]:
    return [json.loads(entry["message"])["message"] for entry in log]


def first_load_bytes(messages: list[dict]) -> int:
    """Bytes received over the wire by every request of a page load (finished or still streaming)."""
    finished: dict[str, int] = {}
    streamed: dict[str, int] = {}
    for message in messages:
        params = message.get("params", {})
        if message.get("method") == "Network.loadingFinished":
            finished[params["requestId"]] = params.get("encodedDataLength", 0)
        elif message.get("method") == "Network.dataReceived":
            streamed[params["requestId"]] = streamed.get(params["requestId"], 0) + params.get(
                "encodedDataLength", 0
            )
    return sum(finished.values()) + sum(v for k, v in streamed.items() if k not in finished)


# Chromium's performance metrics (ms) the report splits the task time into: the page's own script,
# and the layout and style work its changes cause.
PARTS = ("ScriptDuration", "LayoutDuration", "RecalcStyleDuration")


def durations_ms(driver) -> dict[str, float]:
    """The page's main-thread durations so far (ms), from Chromium's performance metrics."""
    metrics = driver.execute_cdp_cmd("Performance.getMetrics", {})["metrics"]
    return {m["name"]: 1000.0 * m["value"] for m in metrics if m["name"] in ("TaskDuration", *PARTS)}


def task_ms(driver) -> float:
    """The page's main-thread task time so far (ms)."""
    return durations_ms(driver)["TaskDuration"]


def measure(base: str, *, deal_timeout: float = 400) -> dict:
    driver = webclient.chromium(webclient.DESKTOP)
    try:
        game_id = webclient.start_quick_match(driver, base)
        token = driver.execute_script("return localStorage.getItem('bh.token')")
        webclient.wait(driver, lambda d: d.find_elements(webclient.By.CSS_SELECTOR, "#hand .card"))
        # The first load, from an empty cache.
        driver.execute_cdp_cmd("Network.clearBrowserCache", {})
        driver.get_log("performance")
        driver.get(f"{base}/play/{game_id}")
        webclient.wait(driver, lambda d: d.find_elements(webclient.By.CSS_SELECTOR, "#hand .card"))
        time.sleep(1.0)
        load = first_load_bytes(_messages(driver.get_log("performance")))
        view = len(json.dumps(webclient.api(base, "GET", f"games/{game_id}", token)).encode())

        # The server plays the guest's seat (托管) from here: the page only follows the deal.
        webclient.api(base, "POST", f"games/{game_id}/trustee", token, {"on": True})
        driver.execute_cdp_cmd("Performance.enable", {})
        first_seq = webclient.api(base, "GET", f"games/{game_id}/events?after=0", token)["last_seq"]
        started, before = time.monotonic(), durations_ms(driver)
        # The deal's end is read from the API, not from the page: a WebDriver query runs script in the
        # page, on the very main thread whose time is measured.
        while time.monotonic() - started < deal_timeout:
            if webclient.api(base, "GET", f"games/{game_id}", token)["status"] != "running":
                webclient.wait(driver, lambda d: d.find_elements(webclient.By.ID, "final-title"))
                break
            time.sleep(0.5)
        seconds = time.monotonic() - started
        after = durations_ms(driver)
        busy = after["TaskDuration"] - before["TaskDuration"]
        events = webclient.api(base, "GET", f"games/{game_id}/events?after=0", token)["last_seq"] - first_seq
        # The baseline: the same page, nothing happening, as long again (at most 20 s).
        idle_seconds = min(seconds, 20.0)
        idle_from = task_ms(driver)
        time.sleep(idle_seconds)
        idle = task_ms(driver) - idle_from
        return {
            "first_load_bytes": load,
            "view_bytes": view,
            "events": events,
            "follow_seconds": seconds,
            "busy_ms": busy,
            "cpu_ms_per_event": busy / max(events, 1),
            **{f"{part}_per_event": (after[part] - before[part]) / max(events, 1) for part in PARTS},
            "idle_ms_per_second": idle / idle_seconds,
        }
    finally:
        driver.quit()


def report(figures: dict, label: str = "") -> str:
    return "\n".join(
        [
            f"{label}first load of /play/<game>: {figures['first_load_bytes'] / 1024:.1f} KB over the wire "
            f"(budget {FIRST_LOAD_BUDGET // 1024} KB; baseline: the API's view alone "
            f"{figures['view_bytes'] / 1024:.1f} KB)",
            f"{label}client CPU per received event: {figures['cpu_ms_per_event']:.2f} ms "
            f"({figures['busy_ms']:.0f} ms main-thread busy for {figures['events']} events in "
            f"{figures['follow_seconds']:.0f} s; budget {CPU_PER_EVENT_BUDGET_MS} ms; baseline: the idle "
            f"page {figures['idle_ms_per_second']:.2f} ms per second); of which script "
            f"{figures['ScriptDuration_per_event']:.2f} ms, "
            f"layout {figures['LayoutDuration_per_event']:.2f} ms, "
            f"style {figures['RecalcStyleDuration_per_event']:.2f} ms",
        ]
    )


def _measured(base_dir: Path) -> dict:
    service = LiveService(Path(tempfile.mkdtemp(prefix="bh-bench-web-")), base_dir=base_dir).start()
    try:
        return measure(service.url)
    finally:
        service.stop()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--baseline", default=BASELINE_CLIENT, help="the commit whose client is the baseline")
    parser.add_argument("--no-baseline", action="store_true", help="measure this checkout's client only")
    args = parser.parse_args()
    if not args.no_baseline:
        print(report(_measured(baseline_tree(args.baseline)), f"baseline {args.baseline}: "), flush=True)
    print(report(_measured(Path(__file__).resolve().parent.parent), "this checkout: "))


if __name__ == "__main__":
    main()
