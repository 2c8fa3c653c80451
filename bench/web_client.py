"""The web client's budgets (docs/web-client.md "Tests and budgets"), measured in headless Chromium
against the whole service as `scripts/start` runs it (tests/browser/live.py):

* first load: bytes over the wire for the table page (`/play/<game>`, an empty cache: the document,
  the modules, the stylesheet and the API reads it makes), from the Network events of Chromium's
  performance log. Budget 200 KB. Baseline: the API's own view of the deal (`GET games/{id}`).
* CPU per received event while the page follows a deal played by the server (the guest's seat on
  托管), divided by the events the deal's log gained meanwhile. Budget 2 ms, on what the table
  itself costs: the main thread's CPU less the floor's (below; since 2026-12-06, when the floor
  measured 1.4-1.6 ms an event on the development machine, so that no page drawing each event met
  2 ms whole). Every measure is printed, from Chromium's performance metrics (DevTools'
  Performance.getMetrics):
  - the old one (the only one until 2026-12-06): the main thread's task time (`TaskDuration`), all
    of it charged to the events. Task time is wall time: a frame's commit waits for the compositor
    and the raster threads, and on a loaded machine every task waits for a CPU, and the wait is
    counted; and the page's own clock (the countdown's frame once a second) is charged to the events
    although it runs without them. Its baseline: the page's task time per second after the deal.
  - the new one: the main thread's CPU time (`ThreadTime`: time on a CPU, waits left out), per
    event, once all of it and once less what the same table costs with no event coming (its
    countdown, Chromium's own timers), measured on the page during the player's own turn in the
    play phase, when every other seat waits for him (IDLE_SECONDS, before his seat goes on 托管).
    The first is an upper bound of what the events cost; the second a lower one when the clock
    ticks less often during the deal than during the idle turn.
  Floor: a second browser follows the same deal at the same time on a page of the service that
  reads the stream with the client's own reader (web/static/web/api.js `follow`) and writes one line
  of text per event: what any page that draws each event costs in this browser, the table or not
  (the stream's delivery, its parsing, one frame a chunk). The table less the floor is what the
  table itself costs. `--no-floor` leaves it out (one browser at a time, as before 2026-12-06).
  Baseline: the same figures for the client of `--baseline` (default BASELINE_CLIENT, the last
  client that read the whole view again on every event), run from that commit's tree
  (bench/support.py `baseline_tree`) in the same run, one after the other.

    python bench/web_client.py [--baseline COMMIT | --no-baseline]
"""

import argparse
import json
import sys
import tempfile
import time
from datetime import UTC, datetime
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
# How long the table is watched with nothing coming (the player's own turn; a play window is 20 s).
IDLE_SECONDS = 10.0
# The answers the guest gives to the deal's windows on its way to the play phase (tests/browser).
PREFERRED = ("accept", "stay", "pass", "decline")


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
# The main thread's CPU time (time on a CPU, not waiting), beside its task time (wall time).
CPU = "ThreadTime"


def durations_ms(driver) -> dict[str, float]:
    """The page's main-thread durations so far (ms), from Chromium's performance metrics."""
    metrics = driver.execute_cdp_cmd("Performance.getMetrics", {})["metrics"]
    return {m["name"]: 1000.0 * m["value"] for m in metrics if m["name"] in ("TaskDuration", CPU, *PARTS)}


def task_ms(driver) -> float:
    """The page's main-thread task time so far (ms)."""
    return durations_ms(driver)["TaskDuration"]


def _seconds_left(deadline: str | None) -> float:
    if not deadline:
        return 0.0
    return (datetime.fromisoformat(deadline) - datetime.now(UTC)).total_seconds()


def idle_table(driver, base: str, game_id: int, token: str, *, seconds: float, timeout: float = 90):
    """The table page's own cost while no event comes: the guest's turn in the play phase, when every
    other seat waits for him. The guest answers the deal's windows on the way (through the API, not
    the page). None when the deal gives no such turn in time."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        view = webclient.api(base, "GET", f"games/{game_id}", token)
        if view["status"] != "running":
            return None
        legal = view["legal_actions"]
        if view["phase"] == "play" and view.get("to_act") == [view["seat"]]:
            if _seconds_left(view.get("deadline")) > seconds + 3:
                time.sleep(1.0)  # the page draws the turn the feed brought
                before = durations_ms(driver)
                time.sleep(seconds)
                after = durations_ms(driver)
                return {
                    "seconds": seconds,
                    "task_ms": after["TaskDuration"] - before["TaskDuration"],
                    "cpu_ms": after[CPU] - before[CPU],
                }
            answer = legal[0] if legal else None  # found late: play on, and wait for his next turn
        else:
            answer = next(
                (a for t in PREFERRED for a in legal if a["type"] == t), legal[0] if legal else None
            )
        if answer is not None:
            try:
                body = {**answer, "expected_version": view["version"]}
                webclient.api(base, "POST", f"games/{game_id}/actions", token, body)
            except OSError:
                pass  # the turn moved on meanwhile (409): read the view again
        time.sleep(0.3)
    return None


# The floor page: the client's own stream reader on a page of the service, one text line per event.
FLOOR_SCRIPT = """
const [gameId, after, token] = arguments;
localStorage.setItem("bh.token", token);
document.body.textContent = "";
const line = document.createElement("p");
document.body.append(line);
window.floorEvents = 0;
import("/static/web/api.js").then(({ follow }) => follow(`games/${gameId}/events`, {
  after, signal: new AbortController().signal,
  onEvent: (type, data, seq) => { window.floorEvents += 1; line.textContent = `${seq} ${type}`; },
  onTrouble: () => {},
}));
"""


def floor_page(base: str, game_id: int, after: int, token: str):
    """A browser on the service's health page following the deal from `after` (FLOOR_SCRIPT)."""
    driver = webclient.chromium(webclient.DESKTOP)
    driver.get(f"{base}/healthz")
    driver.execute_cdp_cmd("Performance.enable", {})
    driver.execute_script(FLOOR_SCRIPT, game_id, after, token)
    return driver


def measure(
    base: str, *, deal_timeout: float = 400, idle_seconds: float = IDLE_SECONDS, floor: bool = True
) -> dict:
    driver = webclient.chromium(webclient.DESKTOP)
    floor_driver = None
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

        driver.execute_cdp_cmd("Performance.enable", {})
        idle = idle_table(driver, base, game_id, token, seconds=idle_seconds)

        # The server plays the guest's seat (托管) from here: the page only follows the deal.
        webclient.api(base, "POST", f"games/{game_id}/trustee", token, {"on": True})
        first_seq = webclient.api(base, "GET", f"games/{game_id}/events?after=0", token)["last_seq"]
        if floor:
            floor_driver = floor_page(base, game_id, first_seq, token)
            floor_before = durations_ms(floor_driver)
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
        floor_cpu = None
        if floor_driver is not None:
            floor_cpu = durations_ms(floor_driver)[CPU] - floor_before[CPU]
            floor_events = floor_driver.execute_script("return window.floorEvents")
        busy, cpu = after["TaskDuration"] - before["TaskDuration"], after[CPU] - before[CPU]
        events = webclient.api(base, "GET", f"games/{game_id}/events?after=0", token)["last_seq"] - first_seq
        # The first measure's baseline: the page after the deal, as long again (at most 20 s).
        after_seconds = min(seconds, 20.0)
        after_from = task_ms(driver)
        time.sleep(after_seconds)
        after_deal = task_ms(driver) - after_from
        per = max(events, 1)
        # The second measure: the renderer's main-thread CPU, less the table's own cost without events.
        idle_cpu = idle["cpu_ms"] / idle["seconds"] if idle else 0.0
        idle_task = idle["task_ms"] / idle["seconds"] if idle else 0.0
        return {
            "first_load_bytes": load,
            "view_bytes": view,
            "events": events,
            "follow_seconds": seconds,
            "busy_ms": busy,
            "cpu_ms_per_event": busy / per,
            **{f"{part}_per_event": (after[part] - before[part]) / per for part in PARTS},
            "idle_ms_per_second": after_deal / after_seconds,
            "main_cpu_ms": cpu,
            "idle_measured": idle is not None,
            "idle_cpu_ms_per_second": idle_cpu,
            "idle_task_ms_per_second": idle_task,
            "gross_cpu_ms_per_event": cpu / per,
            "net_cpu_ms_per_event": (cpu - idle_cpu * seconds) / per,
            "net_task_ms_per_event": (busy - idle_task * seconds) / per,
            # Over the deal's events, as the table's: a floor page that read fewer (its stream starts
            # a moment later) is counted low, which leaves the table's own figure high, the safe side.
            "floor_cpu_ms_per_event": None if floor_cpu is None else floor_cpu / per,
            "floor_events": None if floor_cpu is None else floor_events,
        }
    finally:
        driver.quit()
        if floor_driver is not None:
            floor_driver.quit()


def report(figures: dict, label: str = "") -> str:
    if figures["idle_measured"]:
        net = (
            f"{figures['net_cpu_ms_per_event']:.2f} ms less the idle table's "
            f"{figures['idle_cpu_ms_per_second']:.2f} ms CPU per second (task time the same way: "
            f"{figures['net_task_ms_per_event']:.2f} ms per event, the idle table "
            f"{figures['idle_task_ms_per_second']:.2f} ms per second)"
        )
    else:
        net = "the idle table not measured: the deal gave the guest no play turn in time"
    return "\n".join(
        [
            f"{label}first load of /play/<game>: {figures['first_load_bytes'] / 1024:.1f} KB over the wire "
            f"(budget {FIRST_LOAD_BUDGET // 1024} KB; baseline: the API's view alone "
            f"{figures['view_bytes'] / 1024:.1f} KB)",
            f"{label}old measure, main-thread task time per received event: "
            f"{figures['cpu_ms_per_event']:.2f} ms ({figures['busy_ms']:.0f} ms for {figures['events']} "
            f"events in {figures['follow_seconds']:.0f} s; budget {CPU_PER_EVENT_BUDGET_MS} ms; baseline: "
            f"the page after the deal {figures['idle_ms_per_second']:.2f} ms per second); of which script "
            f"{figures['ScriptDuration_per_event']:.2f} ms, "
            f"layout {figures['LayoutDuration_per_event']:.2f} ms, "
            f"style {figures['RecalcStyleDuration_per_event']:.2f} ms",
            f"{label}new measure, main-thread CPU per received event: "
            f"{figures['gross_cpu_ms_per_event']:.2f} ms ({figures['main_cpu_ms']:.0f} ms CPU for "
            f"{figures['events']} events; budget {CPU_PER_EVENT_BUDGET_MS} ms), {net}",
            *(
                [
                    f"{label}floor, a page drawing one line per event of the same deal at the same time: "
                    f"{figures['floor_cpu_ms_per_event']:.2f} ms main-thread CPU per event "
                    f"({figures['floor_events']} events read); the table less the floor "
                    f"{figures['gross_cpu_ms_per_event'] - figures['floor_cpu_ms_per_event']:.2f} ms "
                    f"(budget {CPU_PER_EVENT_BUDGET_MS} ms)"
                ]
                if figures.get("floor_cpu_ms_per_event") is not None
                else []
            ),
        ]
    )


def _measured(base_dir: Path, *, floor: bool = True) -> dict:
    service = LiveService(Path(tempfile.mkdtemp(prefix="bh-bench-web-")), base_dir=base_dir).start()
    try:
        return measure(service.url, floor=floor)
    finally:
        service.stop()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--baseline", default=BASELINE_CLIENT, help="the commit whose client is the baseline")
    parser.add_argument("--no-baseline", action="store_true", help="measure this checkout's client only")
    parser.add_argument("--no-floor", action="store_true", help="no second browser on the floor page")
    args = parser.parse_args()
    floor = not args.no_floor
    if not args.no_baseline:
        figures = _measured(baseline_tree(args.baseline), floor=floor)
        print(report(figures, f"baseline {args.baseline}: "), flush=True)
    print(report(_measured(Path(__file__).resolve().parent.parent, floor=floor), "this checkout: "))


if __name__ == "__main__":
    main()
