"""A deleted player's name in the deals he played (docs/client-guide.md "Your data").

`Game.players` is a snapshot of the seats' usernames taken when each deal was dealt; a deleted
account's seats show its tombstone (`deleted-<id>`) instead, so the record of every deal stays whole
(ids, seats, scores) without his name.
"""

from games.models import Game, GamePlayer


def game_players_rename(*, user_id: int, name: str) -> int:
    """Write `name` for `user_id`'s seats in the snapshots of every deal he played; returns how many
    deals. Call it inside the deletion's transaction before anything locks a table: it locks the
    deals' rows in id order, each before its table (games/lock_objects.py), and no move locks more
    than one game, so no two transactions wait for each other."""
    seats: dict[int, list[int]] = {}
    for game_id, seat in GamePlayer.objects.filter(user_id=user_id).values_list("game_id", "seat"):
        seats.setdefault(game_id, []).append(seat)
    games = list(Game.objects.select_for_update().filter(pk__in=seats).order_by("pk").only("pk", "players"))
    for game in games:
        game.players = [
            name if seat in seats[game.pk] else player for seat, player in enumerate(game.players)
        ]
    Game.objects.bulk_update(games, ["players"])
    return len(games)
