"""Finishing deals quickly through the service path: seats on 托管 plus "humans" who play the default
action by hand, and bots acting as their task does (used by the timer, penalty, rating and table
tests). A deal that ends is then taken by its table as the worker does after the commit
(tests.conftest.deal_end_steps: the pause is over at once)."""

from datetime import timedelta

from django.utils import timezone

from games import actions, engine, selectors, services, tasks
from games.models import Game, GameStatus
from tests.conftest import deal_end_steps


def set_trustee(setup, seat: int, on: bool):
    return setup["clients"][seat].post(f"/api/v1/games/{setup['game']}/trustee", {"on": on}, format="json")


def _game(game_id: int) -> Game:
    return Game.objects.select_related("table").get(pk=game_id)


def _play_out(setup, seats) -> Game:
    """Apply the default action for each prompted seat in `seats` through the move API (as if those
    players chose it) until the deal ends; the others are on trustee."""
    for _ in range(3000):
        game = _game(setup["game"])
        if game.status != GameStatus.RUNNING:
            deal_end_steps()
            return game
        state = selectors.game_state(game=game)
        if all(game.trustee[s] for s in engine.to_act(state)):
            # What the worker does after each commit (no worker here: on_commit never runs).
            assert services.game_trustee_autoplay(game_id=game.pk, version=game.version)
            continue
        seat = next(s for s in engine.to_act(state) if s in seats)
        action = engine.action_to_dict(engine.trustee_action(state, seat))
        response = setup["clients"][seat].post(
            f"/api/v1/games/{setup['game']}/actions", {k: v for k, v in action.items() if v}, format="json"
        )
        assert response.status_code == 200, response.json()
    raise AssertionError("deal did not end")


def autoplay_to_the_end(game_id: int) -> Game:
    """Go on with a trustee chain as the worker's game_trustee_autoplay tasks would."""
    for _ in range(1000):
        game = _game(game_id)
        if game.status != GameStatus.RUNNING or not services.game_trustee_autoplay(
            game_id=game_id, version=game.version
        ):
            deal_end_steps()
            return game
    raise AssertionError("auto-play did not end")


def finish_with_trustees(setup, humans=(0,)) -> Game:
    """A whole deal: every seat but `humans` on trustee, the humans playing the default by hand."""
    for seat in range(5):
        if seat not in humans:
            assert set_trustee(setup, seat, True).status_code == 200
    return _play_out(setup, humans)


def deal_played_out(game_id: int, playing: dict[int, object]) -> Game:
    """Drive one deal to its end as the server would: the `playing` seats move by hand (the default
    action, through the API), bots act as their task does, trustee seats as the auto-play task does,
    and a prompted seat nobody plays times out at its deadline."""
    for _ in range(3000):
        game = Game.objects.select_related("table").get(pk=game_id)
        if game.status != GameStatus.RUNNING:
            deal_end_steps()
            return game
        state = selectors.game_state(game=game)
        prompted = engine.to_act(state)
        by_hand = [seat for seat in prompted if seat in playing and not game.trustee[seat]]
        if by_hand:
            action = engine.action_to_dict(engine.trustee_action(state, by_hand[0]))
            response = playing[by_hand[0]].post(
                f"/api/v1/games/{game_id}/actions", {k: v for k, v in action.items() if v}, format="json"
            )
            assert response.status_code == 200, response.json()
        elif actions.bot_seats_prompted(game=game, state=state):
            assert services.game_bots_act(game_id=game_id, version=game.version)
        elif all(game.trustee[seat] for seat in prompted):
            assert services.game_trustee_autoplay(game_id=game_id, version=game.version)
        else:
            Game.objects.filter(pk=game_id).update(deadline=timezone.now() - timedelta(seconds=5))
            assert tasks.game_deadline_expire.run(game_id=game_id, version=game.version)
    raise AssertionError("the deal did not end")
