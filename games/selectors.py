"""Reads of deals. Every view a user can see is built here, through `game_access_seat`."""

import json
import threading
from collections import OrderedDict
from datetime import timedelta
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Q
from django.utils import timezone

from accounts import selectors as account_selectors
from accounts.models import RatingChange
from games import engine, rows
from games.deal_end import DealEnded
from games.models import Event, Game, GamePlayer, GameStatus, UnratedReason, table_model
from infra.api.errors import ApiError, ErrorCode
from infra.json_field import json_column
from infra.timestamps import utc_iso


@lru_cache(maxsize=256)
def _rules_cached(preset: str, options_json: str) -> Any:
    return engine.preset(preset, **json.loads(options_json))


def rules_for(*, preset: str, options: dict) -> Any:
    try:
        return _rules_cached(preset, json.dumps(options, sort_keys=True))
    except (ValueError, TypeError) as exc:
        raise ApiError(ErrorCode.INVALID_REQUEST, f"Bad preset or options: {exc}") from exc


class _StateCache:
    """Decoded states by (game id, version): a version names exactly one state, so entries never go
    stale. Filled only after a commit, so a rolled-back version is never remembered."""

    def __init__(self, size: int = 512):
        self._size = size
        self._items: OrderedDict[tuple[int, int], Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[int, int]) -> Any:
        with self._lock:
            state = self._items.get(key)
            if state is not None:
                self._items.move_to_end(key)
            return state

    def put(self, key: tuple[int, int], state: Any) -> None:
        with self._lock:
            self._items[key] = state
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)


_states = _StateCache()


def game_state(*, game: Game) -> Any:
    key = (game.pk, game.version)
    state = _states.get(key)
    if state is None:
        state = engine.from_json(game.state)
        _states.put(key, state)
    return state


def game_state_keep(*, game_id: int, version: int, state: Any) -> None:
    """Keep the state a committed change left the game in (games/work.py, after the commit: a
    rolled-back change must not be read back)."""
    _states.put((game_id, version), state)


# What a seat's view does not need: read on first use (the final view's endpoint reads them all).
_VIEW_UNREAD = frozenset({"setup", "final"})
_TABLE_VIEW_UNREAD = frozenset({"setups"})


def game_get(*, game_id: int, whole: bool = False) -> Game:
    """The game with its table, in one query (games/rows.py): every client's view after every move
    reads it. Without `whole` the deal's setup and final view and the table's
    fixed setups are left unread (deferred)."""
    if whole:
        return rows.game_with_table(game_id=game_id, lock=False)
    return rows.game_with_table(
        game_id=game_id, lock=False, game_unread=_VIEW_UNREAD, table_unread=_TABLE_VIEW_UNREAD
    )


@lru_cache(maxsize=1)
def _log_read_sql() -> str:
    quote = connection.ops.quote_name
    games, tables, events = (quote(m._meta.db_table) for m in (Game, table_model(), Event))
    return (
        f"SELECT g.seat_user_ids, g.{quote('left')}, g.last_seq, g.version, g.table_id, t.private,"
        " e.seq, e.data"
        f" FROM {games} g JOIN {tables} t ON t.id = g.table_id"
        f" LEFT JOIN {events} e ON e.game_id = g.id AND e.seq > %s"
        " WHERE g.id = %s ORDER BY e.seq"
    )


def game_log_read(*, game_id: int, after: int) -> tuple[Game, list[tuple[int, dict]]]:
    """What reading a deal's log needs, in one statement: the row's seats, `left`, `last_seq`,
    `version` and its table's `private` (as a Game with its table attached, nothing else loaded), and
    the events after `after` as (seq, data). A client's poll is most of a server's requests, and the
    rest of the row (the state, the setup, the final view, the table's settings) is kilobytes of JSON
    to decode for nothing; one hand-written statement also saves the ORM's query building twice."""
    with connection.cursor() as cursor:
        cursor.execute(_log_read_sql(), [after, game_id])
        rows = cursor.fetchall()
    if not rows:
        raise ApiError(ErrorCode.NOT_FOUND, "No such game.")
    seat_user_ids, left, last_seq, version, table_id, private = rows[0][:6]
    game = Game(
        id=game_id,
        seat_user_ids=json_column(seat_user_ids),
        left=json_column(left),
        last_seq=last_seq,
        version=version,
        table_id=table_id,
    )
    game.table = table_model()(id=table_id, private=private)
    events = [(seq, json_column(data)) for *_, seq, data in rows if seq is not None]
    return game, events




def game_seat_of(*, game: Game, user: Any) -> int | None:
    """The seat `user` plays in this deal, or None (a player who left no longer has one)."""
    if not getattr(user, "is_authenticated", False):
        return None
    try:
        seat = game.seat_user_ids.index(user.pk)
    except ValueError:
        return None
    return None if game.left[seat] else seat


def game_access_seat(*, game: Game, user: Any) -> int | None:
    """The viewer's seat, None for a spectator of a public table; 403 for a private one."""
    seat = game_seat_of(game=game, user=user)
    if seat is None and game.table.private:
        raise ApiError(ErrorCode.PERMISSION_DENIED, "This table is private.")
    return seat


def _extras(game: Game) -> dict:
    return {
        "id": game.pk,
        # docs/client-guide.md names the table id `table`, but the view's own `table` is the play to beat;
        # the play keeps the name and the id is `table_id` (documented in the schema).
        "table_id": game.table_id,
        "number": game.number,
        "status": game.status,
        "version": game.version,
        "deadline": utc_iso(game.deadline),
        "players": list(game.players),
        "trustee": list(game.trustee),
        "unscored": game.unscored,
    }


def game_view_for_seat(*, game: Game, seat: int | None, state: Any = None) -> dict:
    state = state if state is not None else game_state(game=game)
    view = engine.seat_view(state, seat) if seat is not None else engine.public_view(state)
    return {**view, **_extras(game)}


def game_view(*, game: Game, user: Any) -> dict:
    return game_view_for_seat(game=game, seat=game_access_seat(game=game, user=user))


def game_hint(*, game: Game, user: Any) -> dict:
    """What the `normal` bot would do in the caller's seat (docs/client-guide.md §3 "Hint"), chosen from
    exactly the view `GET games/{id}` serves that seat: the bot reads nothing else, so a hint cannot
    tell a player more than his own view does (docs/bots.md)."""
    seat = game_seat_of(game=game, user=user)
    if seat is None:
        raise ApiError(ErrorCode.PERMISSION_DENIED, "Only a seated player gets a hint.")
    if game.status != GameStatus.RUNNING:
        raise ApiError(ErrorCode.GAME_OVER, "The deal is over.")
    view = game_view_for_seat(game=game, seat=seat)
    if not view["legal_actions"]:
        raise ApiError(ErrorCode.NOT_YOUR_TURN, "You have nothing to do now.")
    return engine.bot_action(view, level="normal").to_dict()


def game_final(*, game: Game, user: Any) -> dict:
    game_access_seat(game=game, user=user)
    if game.status == GameStatus.RUNNING:
        raise ApiError(ErrorCode.GAME_NOT_OVER, "The deal is not over yet.")
    if game.final is None:  # aborted before aborted deals kept a final view: built from the row
        reason = Event.objects.filter(game=game, type="aborted").values_list("data", flat=True).last()
        final = {**engine.aborted_view(game_state(game=game)), "abort_reason": (reason or {}).get("reason")}
        return {**final, **_extras(game)}
    return game_final_view(game=game)


def event_visible_to(*, data: dict, seat: int | None) -> bool:
    private_to = data.get("private_to")
    return private_to is None or (seat is not None and seat in private_to)


def game_events(*, game_id: int, user: Any, after: int) -> dict:
    """Events after `after`, redacted for the viewer: another seat's private event is dropped."""
    game, rows = game_log_read(game_id=game_id, after=after)
    return game_events_page(game=game, rows=rows, seat=game_access_seat(game=game, user=user))


def game_events_page(*, game: Game, rows: list[tuple[int, dict]], seat: int | None) -> dict:
    """`game_log_read`'s rows as the log's answer to `seat` (None: a spectator)."""
    events = [{**data, "seq": seq} for seq, data in rows if event_visible_to(data=data, seat=seat)]
    # Rows committed after `game` was read may be in `rows`: last_seq covers them, so that a client
    # passing it back as `after` never receives an event twice.
    last_seq = max([game.last_seq, *(seq for seq, _ in rows)])
    return {"events": events, "last_seq": last_seq, "version": game.version}


def game_events_changed(*, game_id: int, after: int) -> bool:
    # Asked by every long-poll about to wait; one hand-written statement, as the log's read.
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT 1 FROM {Game._meta.db_table} WHERE id = %s AND last_seq > %s", [game_id, after]
        )
        return cursor.fetchone() is not None


def game_count_of_table(*, table_id: int) -> int:
    """Deals dealt at a table so far, void ones included (the next deal's number)."""
    return Game.objects.filter(table_id=table_id).count()


def game_running_id(*, table_id: int) -> int | None:
    return (
        Game.objects.filter(table_id=table_id, status=GameStatus.RUNNING).values_list("pk", flat=True).first()
    )


def games_of_table(*, table_id: int) -> list[Game]:
    return list(
        Game.objects.filter(table_id=table_id)
        .order_by("number")
        .only("id", "number", "status", "final", "trustee", "table_id", "unscored")
    )


def games_of_tables(*, table_ids: list[int]) -> list[Game]:
    """The deals of many tables, by table then number (a tournament round's results, one query)."""
    return list(
        Game.objects.filter(table_id__in=table_ids)
        .order_by("table_id", "number")
        .only("id", "number", "status", "final", "table_id", "unscored")
    )


def game_replay_log(*, game: Game) -> list[tuple[int, Any]]:
    """The applied actions, in order, as engine.replay takes them."""
    rows = (
        Event.objects.filter(game=game, action__isnull=False).order_by("seq").values_list("action", flat=True)
    )
    return [(seat, engine.action_from_dict(action)) for seat, action in rows]


def game_void_streak(*, table_id: int) -> int:
    """Void deals dealt in a row at the end of a table's history."""
    last_not_void = (
        Game.objects.filter(table_id=table_id).exclude(status=GameStatus.VOID).order_by("-number").first()
    )
    after = last_not_void.number if last_not_void else -1
    return Game.objects.filter(table_id=table_id, status=GameStatus.VOID, number__gt=after).count()


def game_ended(*, game: Game, state: Any = None) -> DealEnded:
    """The DealEnded value of a finished deal, for the table's deal loop."""
    return DealEnded(
        game_id=game.pk,
        table_id=game.table_id,
        number=game.number,
        void=game.status == GameStatus.VOID,
        unscored=game.unscored,
        aborted=game.status == GameStatus.ABORTED,
        trustee_seats=tuple(seat for seat in range(5) if game.trustee[seat]),
        left_seats=tuple(seat for seat in range(5) if game.left[seat]),
        # games/actions.py trustee_is_locked: more than three entries, or put there for good.
        locked_seats=tuple(
            seat for seat in range(5) if game.trustee[seat] and game.trustee_entries[seat] > 3
        ),
        setup=game.setup,
        # A void deal is dealt again from its own setup; only a played deal has an outcome to carry.
        outcome=engine.deal_outcome(state if state is not None else game_state(game=game))
        if game.status == GameStatus.OVER
        else None,
    )


def game_seat_summary(*, table_id: int, seat: int) -> dict | None:
    """The running deal of a table as one seat's player needs it to come back (`GET me/active`,
    docs/client-guide.md "Coming back"), or None between deals: public facts (phase, deadline,
    version) and his own seat's (prompted now, on 托管, locked there). Nothing of another seat."""
    game = (
        Game.objects.filter(table_id=table_id, status=GameStatus.RUNNING)
        .only("id", "state", "version", "deadline", "trustee", "trustee_entries", "table_id")
        .first()
    )
    if game is None:
        return None
    state = game_state(game=game)
    return {
        "game": game.pk,
        "phase": state.phase,
        "your_turn": seat in engine.to_act(state),
        "deadline": utc_iso(game.deadline),
        "version": game.version,
        "trustee": bool(game.trustee[seat]),
        # games/actions.py trustee_is_locked: more than three entries (or left, or banned).
        "trustee_locked": game.trustee_entries[seat] > 3,
    }


def game_last_ended(*, table_id: int) -> DealEnded | None:
    """The newest deal of a table as its deal-end value, when it is finished (the next deal follows
    from it: start seat and context, or the same ones again after a void deal)."""
    game = Game.objects.filter(table_id=table_id).order_by("-number").first()
    if game is None or game.status == GameStatus.RUNNING:
        return None
    return game_ended(game=game)


def games_table_pending(*, older_than: float, limit: int = 100) -> list[int]:
    """Finished deals their table has not taken for `older_than` seconds (their task was lost or is
    late), oldest first, for the table's beat sweep."""
    cutoff = timezone.now() - timedelta(seconds=older_than)
    pending = Game.objects.filter(table_pending=True, finished_at__lt=cutoff).order_by("finished_at")
    return list(pending.values_list("pk", flat=True)[:limit])


def game_user_played_at(*, table_id: int, user_id: int) -> bool:
    """Did `user_id` play a deal of this table (even one he left)?"""
    return GamePlayer.objects.filter(game__table_id=table_id, user_id=user_id).exists()


def game_final_view(*, game: Game) -> dict:
    """What `GET games/{id}/final` answers, for anyone (the `game.over` webhook's data). Only an
    aborted deal's stored view holds an `abort_reason`."""
    return {"abort_reason": None, **game.final, **_extras(game)}


def game_unrated_reason(*, game: Game) -> str | None:
    """The one rule that decides whether a finished deal is rated (docs/matchmaking.md "Rated
    deals"); None: rate it, else the UnratedReason. A rating is a measure of skill against
    opponents nobody picked, so a deal is rated only when it is scored; at a table neither made
    from unrated tickets (parties) nor private unless staff made it (hand-picked opponents); and
    with at least RATING_MIN_PLAYED_SEATS seats played (`_seat_is_played`): four accounts registered
    a minute ago, or left on 托管, measure nothing and would farm the others' ratings."""
    if (
        game.status != GameStatus.OVER
        or game.unscored
        or any(user_id is None for user_id in game.seat_user_ids)
    ):
        return UnratedReason.NOT_SCORED
    outcome = engine.deal_outcome(game_state(game=game))
    if not outcome.emperor_side or not outcome.other_side:
        return UnratedReason.NOT_SCORED
    if not game.table.rated:
        return UnratedReason.UNRATED_TABLE
    if game.table.private and not game.table.creator.is_staff:
        return UnratedReason.PRIVATE_TABLE
    users = {
        user.pk: user
        for user in get_user_model()
        .objects.filter(pk__in=game.seat_user_ids)
        .only("pk", "is_bot", "date_joined")
    }
    shares = _seat_trustee_shares(game=game)
    played = sum(
        _seat_is_played(game=game, user=users.get(user_id), trustee_share=shares[seat])
        for seat, user_id in enumerate(game.seat_user_ids)
    )
    if played < settings.RATING_MIN_PLAYED_SEATS:
        return UnratedReason.FEW_PLAYERS
    return None


def _seat_is_played(*, game: Game, user: Any, trustee_share: float) -> bool:
    """A seat measures its player when he made most of its moves himself (at most
    RATING_MAX_TRUSTEE_SHARE of them on 托管) and he is a bot account (the server's, or an
    integrator's that staff registered: no player can make one) or an account at least
    RATING_MIN_ACCOUNT_AGE_HOURS old when the deal began (an account made for the deal is not)."""
    if user is None or trustee_share > settings.RATING_MAX_TRUSTEE_SHARE:
        return False
    age = timedelta(hours=settings.RATING_MIN_ACCOUNT_AGE_HOURS)
    return user.is_bot or user.date_joined <= game.created_at - age


def _seat_trustee_shares(*, game: Game) -> list[float]:
    """Per seat, the share of its actions in this deal taken on 托管 (by choice, after a timeout, a
    leave or a ban), read back from the log: each `trustee` event switches a seat, each action row
    names the seat that acted. A seat that never acted counts by where it ended."""
    on, acted, on_trustee = [False] * 5, [0] * 5, [0] * 5
    rows = (
        Event.objects.filter(game=game)
        .filter(Q(type="trustee") | Q(action__isnull=False))
        .order_by("seq")
        .values_list("type", "data", "action")
    )
    for type_, data, action in rows:
        if action is not None:
            seat = action[0]
            acted[seat] += 1
            on_trustee[seat] += on[seat]
        if type_ == "trustee":
            on[data["seat"]] = bool(data["on"])
    return [
        on_trustee[seat] / acted[seat] if acted[seat] else float(bool(game.trustee[seat]))
        for seat in range(5)
    ]


def user_games(*, user_id: int, viewer: Any) -> tuple[bool, Any]:
    """Whether `user_id` is a bot account, and the deals he played as GamePlayer rows (a queryset
    to page, newest first): seen by the player, by the owner of a bot account, and by staff."""
    user = get_user_model().objects.filter(pk=user_id).only("pk", "bot_owner_id", "is_bot").first()
    if user is None:
        raise ApiError(ErrorCode.NOT_FOUND, "No such user.")
    if not account_selectors.user_games_visible(user=user, viewer=viewer):
        raise ApiError(
            ErrorCode.PERMISSION_DENIED, "Only the player, his bot's owner and staff see his games."
        )
    return user.is_bot, GamePlayer.objects.filter(user_id=user_id).select_related("game").order_by("-id")


def user_games_rows(*, players: list[GamePlayer]) -> list[dict]:
    """History rows of a page of GamePlayer rows: one per deal, with the seats bot accounts played
    (the server's bots and integrators' alike). A running deal shows no score or role yet (they are
    hidden until it ends)."""
    bot_seats: dict[int, set[int]] = {}
    for game_id, seat in GamePlayer.objects.filter(
        game_id__in=[player.game_id for player in players], is_bot=True
    ).values_list("game_id", "seat"):
        bot_seats.setdefault(game_id, set()).add(seat)
    rated = set(
        RatingChange.objects.filter(
            game_id__in=[player.game_id for player in players], user_id__in={p.user_id for p in players}
        ).values_list("game_id", "user_id")
    )
    rows = []
    for player in players:
        game = player.game
        final = game.final if game.status in (GameStatus.OVER, GameStatus.VOID) else None
        rows.append(
            {
                "game": game.pk,
                "table": game.table_id,
                "number": game.number,
                "preset": game.preset,
                "seat": player.seat,
                "status": game.status,
                "unscored": game.unscored,
                "role": (final.get("roles") or [None] * 5)[player.seat] if final else None,
                "score": final["scores"][player.seat] if final and game.status == GameStatus.OVER else None,
                "rated": (game.pk, player.user_id) in rated,
                "unrated_reason": game.unrated_reason or None,
                "played_by_bot": player.is_bot,
                "bots": [seat in bot_seats.get(game.pk, ()) for seat in range(5)],
                "with_bots": bool(bot_seats.get(game.pk)),
                "left": bool(game.left[player.seat]),
                "started_at": game.created_at,
                "finished_at": game.finished_at,
            }
        )
    return rows
