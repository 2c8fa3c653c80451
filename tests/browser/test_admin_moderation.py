"""A moderator uses the admin in a real browser: signs in, sanctions a player from a report, aborts
a deal, and finds both in the audit log, which he cannot edit; reviews a deal showing 串牌 on its
replay."""

import random

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import Select, WebDriverWait

from accounts.models import ModerationAction, Sanction, User
from games.models import Game
from matchmaking.models import Report, Table
from tests.api.playing import play_deal
from tests.conftest import deal_end_steps
from tests.moderation.helpers import GUARDS_PASS_SETUP, moderators_group, play_a_guards_pass

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "mod-pass-123"


def _shot(browser, name: str) -> None:
    browser.save_screenshot(str(browser.screenshots_dir / f"{name}.png"))


def _login(browser, live_server) -> None:
    browser.get(f"{live_server.url}/admin/login/")
    browser.find_element(By.NAME, "username").send_keys("moderator")
    browser.find_element(By.NAME, "password").send_keys(PASSWORD)
    browser.find_element(By.CSS_SELECTOR, "input[type=submit]").click()
    # click() returns before the next page loads: wait for it rather than read the old page.
    WebDriverWait(browser, 20).until(lambda driver: "Site administration" in driver.page_source)


def _run_action(browser, live_server, changelist: str, object_id: int, action: str, **form) -> None:
    browser.get(f"{live_server.url}{changelist}")
    browser.find_element(By.CSS_SELECTOR, f"input.action-select[value='{object_id}']").click()
    Select(browser.find_element(By.NAME, "action")).select_by_value(action)
    browser.find_element(By.NAME, "index").click()
    # The intermediate page asks for the reason (and the sanction's kind).
    browser.find_element(By.ID, "moderation-form")
    for name, value in form.items():
        field = browser.find_element(By.NAME, name)
        if field.tag_name == "select":
            Select(field).select_by_value(value)
        else:
            field.clear()
            field.send_keys(value)
    _shot(browser, f"{action}-form")
    apply = browser.find_element(By.ID, "moderation-apply")
    apply.click()
    # click() returns before the answer's page loads (a slow run read the form again): wait for it.
    WebDriverWait(browser, 20).until(expected_conditions.staleness_of(apply))


def test_moderator_sanctions_from_a_report_aborts_a_deal_and_reads_the_audit(
    browser, live_server, make_table
):
    setup = make_table()
    moderator = User.objects.create_user(username="moderator", password=PASSWORD, is_staff=True)
    moderator.groups.add(moderators_group())
    cheat = setup["users"][3]
    report = Report.objects.create(
        reporter=setup["users"][0], user=cheat, game_id=setup["game"], reason="cheating", text="plays blind"
    )
    _login(browser, live_server)

    # The report queue, the reported deal one click away.
    browser.get(f"{live_server.url}/admin/matchmaking/report/?status__exact=open")
    _shot(browser, "report-queue")
    browser.find_element(By.LINK_TEXT, str(report.pk)).click()
    game_link = browser.find_element(By.CSS_SELECTOR, "a.report-game-link")
    game_link.click()
    assert browser.find_element(By.ID, "game-events-link")
    _shot(browser, "game-page")
    assert "seed" not in browser.page_source

    # Sanction the reported player from the queue.
    _run_action(
        browser,
        live_server,
        "/admin/matchmaking/report/",
        report.pk,
        "sanction_reported",
        kind="ban",
        reason="Plays with a second account",
        expires_at="2099-01-01 00:00",
    )
    assert "done for 1 of 1" in browser.page_source
    _shot(browser, "sanction-done")
    sanction = Sanction.objects.get(user=cheat)
    assert sanction.moderator == moderator and sanction.kind == "ban"
    assert Report.objects.get(pk=report.pk).status == "actioned"
    assert Game.objects.get(pk=setup["game"]).trustee[3] is True

    # Abort the deal from the deal list.
    _run_action(
        browser, live_server, "/admin/games/game/", setup["game"], "abort_games", reason="Broken deal"
    )
    assert "done for 1 of 1" in browser.page_source
    game = Game.objects.get(pk=setup["game"])
    assert game.status == "aborted" and game.unscored
    # The table takes the aborted deal in its step after the commit (docs/architecture.md "The end
    # of a deal"), which the worker runs; here the test runs it.
    deal_end_steps()
    assert Table.objects.get(pk=setup["table"]).status == "dissolved"

    # Both in the audit log, which shows but cannot be edited.
    browser.get(f"{live_server.url}/admin/accounts/moderationaction/")
    _shot(browser, "audit-log")
    page = browser.page_source
    assert "Plays with a second account" in page and "Broken deal" in page
    entries = list(ModerationAction.objects.order_by("id").values_list("action", "source", "moderator_id"))
    assert entries == [("sanction", "admin", moderator.pk), ("abort", "admin", moderator.pk)]
    entry = ModerationAction.objects.get(action="abort")
    browser.get(f"{live_server.url}/admin/accounts/moderationaction/{entry.pk}/change/")
    _shot(browser, "audit-entry")
    assert browser.find_elements(By.CSS_SELECTOR, "textarea, input[name=reason]") == []
    assert browser.find_elements(By.CSS_SELECTOR, "a.deletelink") == []


def test_moderator_reviews_a_deal_with_collusion_from_its_report(browser, live_server, make_table):
    """Issue 44 items 8-9: the report's text, the signs per seat at the top, a step one click away and
    kept in the address, the centre's owner named, and no page rule of the web client on the admin."""
    setup = make_table(preset="pagat", setups=[GUARDS_PASS_SETUP])
    play_a_guards_pass(setup)
    play_deal(setup["clients"], setup["game"], random.Random(1))
    moderator = User.objects.create_user(username="moderator", password=PASSWORD, is_staff=True)
    moderator.groups.add(moderators_group())
    guard, commoner = setup["users"][1], setup["users"][2]
    report = Report.objects.create(
        reporter=commoner, user=guard, game_id=setup["game"], reason="collusion", text="he never beat them"
    )
    _login(browser, live_server)

    browser.get(f"{live_server.url}/admin/matchmaking/report/{report.pk}/change/")
    browser.find_element(By.CSS_SELECTOR, "a.report-replay-link").click()
    assert browser.find_element(By.ID, "replay-report-text").text == "he never beat them"
    assert f"#1 {guard.username} guard" in browser.find_element(By.ID, "replay-teams").text
    row = browser.find_element(By.CSS_SELECTOR, '#replay-signs tr[data-seat="1"]')
    link = row.find_element(By.CSS_SELECTOR, "a[href^='#step-']")
    step = int(link.text)
    link.click()
    WebDriverWait(browser, 20).until(lambda driver: driver.current_url.endswith(f"#step-{step}"))
    current = browser.find_element(By.CSS_SELECTOR, "#replay-steps li.current")
    assert int(current.get_attribute("data-step")) == step and "sign clear" in current.get_attribute("class")
    board = browser.find_element(By.ID, "replay-board").shadow_root
    assert len(board.find_elements(By.CSS_SELECTOR, ".replay-seat")) == 5
    # The web client's stylesheet draws the cards but leaves the admin's page alone (its grey root).
    page_background = browser.execute_script(
        "return getComputedStyle(document.documentElement).backgroundColor"
    )
    assert page_background != "rgb(238, 240, 234)"
    # ...and still draws the cards (paper-coloured, the colour reaching the shadow root from the page).
    card_background = browser.execute_script(
        "const card = arguments[0].shadowRoot.querySelector('.card:not(.marked)');"
        "return getComputedStyle(card).backgroundColor",
        browser.find_element(By.ID, "replay-board"),
    )
    assert card_background == "rgb(255, 253, 247)"
    browser.execute_script("window.scrollTo(0, 0)")
    _shot(browser, "admin-replay-signs")

    # One step back, the 9 the guard let stand is in the centre, its owner named; the address follows.
    browser.find_element(By.ID, "replay-back").click()
    assert browser.current_url.endswith(f"#step-{step - 1}")
    assert board.find_element(By.CSS_SELECTOR, ".replay-table").text.startswith(
        f"on the table, played by #2 {commoner.username}"
    )
    browser.get(f"{live_server.url}/admin/games/game/{setup['game']}/replay/?step={step}")
    assert browser.find_element(By.ID, "replay-step").text.startswith(f"{step} /")
