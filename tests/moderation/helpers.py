"""Shared by the moderation tests: a moderator (staff in the `moderators` group), a movable clock, and a
deal built to show 串牌."""

from datetime import datetime

from django.contrib.auth.models import Group

from matchmaking.moderators import GROUP
from tests.api.playing import get_view, post_action


def moderators_group() -> Group:
    """The group migrations make, and make again after every flush (matchmaking/moderators.py)."""
    return Group.objects.get(name=GROUP)


def make_moderator(make_user, make_client):
    """A staff user in the `moderators` group: (user, API client)."""
    user, token = make_user(staff=True)
    user.groups.add(moderators_group())
    return user, make_client(token)


class Clock:
    """Replaces django.utils.timezone.now, which every service, selector and auto_now field reads."""

    def __init__(self, monkeypatch, start: datetime):
        self.now = start
        monkeypatch.setattr("django.utils.timezone.now", lambda: self.now)

    def set(self, moment: datetime) -> None:
        self.now = moment


# 串牌 in pagat: the guard (seat 1) lets a commoner's 9 stand while holding a lone 10, and the trick
# goes to the commoner; the emperor (seat 0) could answer only with his marked big joker.
GUARDS_PASS_HANDS = [
    ["BJ*", "7C", "7D"],
    ["SJ*", "TC", "8S"],
    ["9C", "9D", "KH"],
    ["6C", "6D", "8C"],
    ["6H", "7H", "8D"],
]
GUARDS_PASS_SETUP = {"hands": GUARDS_PASS_HANDS, "candidate": 0}
GUARDS_PASS_PLAYS = [(0, ["7C"]), (1, []), (2, ["9C"]), (3, []), (4, []), (0, []), (1, [])]


def action_of(cards: list[str]) -> dict:
    return {"type": "play", "cards": cards} if cards else {"type": "pass"}


def play_a_guards_pass(setup) -> None:
    """Through the API, at a table made with `setups=[GUARDS_PASS_SETUP]`: the declarations, then the
    trick up to the guard's pass."""
    game_id, clients = setup["game"], setup["clients"]
    while (view := get_view(clients[0], game_id))["phase"] != "play":
        for seat in view["to_act"] or view["window"]["asked"]:
            legal = get_view(clients[seat], game_id)["legal_actions"]
            answer = next(a for a in legal if a["type"] in ("accept", "stay"))
            assert post_action(clients[seat], game_id, answer).status_code == 200
    for seat, cards in GUARDS_PASS_PLAYS:
        assert post_action(clients[seat], game_id, action_of(cards)).status_code == 200
