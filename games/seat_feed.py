"""What a deal tells one seat's user in his feed besides `your_turn` (docs/client-guide.md §4):
`trustee` (his seat went on or off 托管), `timeout` (what the timer did for him) and `prompt_closed`
(a prompt he was told of ended: answered by him, on this device or another, by 托管 or by the timer).

Entries are recorded on the transaction's unit of work (`GameWork.feed_append`) and written with its
one flush (games/work.py), so a move, a timeout or a trustee chain appends all of them in the
statement that saves it. Each goes to the seat's own user only, and says nothing he does not know
already from his own view: his seat, his deal's version, why his own seat changed.
"""

from typing import Any

from games import engine
from games.models import Game
from games.work import GameWork

# Why a seat's prompt closed (`prompt_closed.by`).
BY_YOU, BY_TRUSTEE, BY_TIMER, BY_ABORT = "you", "trustee", "timer", "aborted"
# Why a seat went on or off 托管 (`trustee.by`).
TRUSTEE_BY = ("timeout", "request", "left", "moderator")


def seat_is_told(*, game: Game, seat: int) -> bool:
    """A player sits there who is told of its prompts: not a bot, not on 托管 (it acts at once),
    not gone."""
    return (
        game.seat_user_ids[seat] is not None
        and not (game.bots[seat] or game.trustee[seat] or game.left[seat])
    )


def prompts_track(*, work: GameWork, state: Any) -> None:
    """Note, before this transaction changes anything, which seats were told of the prompt open now
    (their `your_turn`): when their prompt ends, they are told that too."""
    if work.announced is None:
        game = work.game
        work.announced = {seat for seat in engine.to_act(state) if seat_is_told(game=game, seat=seat)}


def prompts_told(*, work: GameWork, seats: list[int]) -> None:
    """These seats were just told of a new prompt (their `your_turn` goes in this transaction)."""
    if work.announced is None:
        work.announced = set()
    work.announced.update(seats)


def prompt_closed(*, work: GameWork, seat: int, by: str) -> None:
    """`seat` answered (or its deal ended): if it had been told of its prompt, tell it the prompt is
    over, at the version that closed it (every `your_turn` of the deal before it is past)."""
    if work.announced is None or seat not in work.announced:
        return
    work.announced.discard(seat)
    _tell(work=work, seat=seat, type="prompt_closed", data={"version": work.game.version, "by": by})


def trustee_told(*, work: GameWork, seat: int, on: bool, locked: bool, by: str) -> None:
    _tell(work=work, seat=seat, type="trustee", data={"on": on, "locked": locked, "by": by})


def timeout_told(*, work: GameWork, seat: int, outcome: str) -> None:
    """`outcome`: `answered` (the prompt's one legal answer was given for the seat, which stays off
    托管) or `trustee` (the seat went on 托管, which answers for it)."""
    _tell(work=work, seat=seat, type="timeout", data={"version": work.game.version, "outcome": outcome})


def _tell(*, work: GameWork, seat: int, type: str, data: dict) -> None:
    game = work.game
    user_id = game.seat_user_ids[seat]
    if user_id is None or game.bots[seat]:
        return
    work.feed_append([(user_id, type, {"game": game.pk, "table": game.table_id, "seat": seat, **data})])
