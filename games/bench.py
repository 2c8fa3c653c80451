"""The bare baseline of bench/api_moves.py: a move's locking transaction without the engine.

Mounted only when BENCH_ENDPOINTS is set. It locks the game row, appends one event row and saves
the game, like a move, but never touches the state or the version.
"""

from django.db import transaction
from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from games import selectors
from games.lock_objects import game_lock
from games.models import Event
from games.work import GameWork
from infra.api.errors import ApiError, ErrorCode


class BenchBareMoveApi(APIView):
    @extend_schema(exclude=True)
    def post(self, request, game_id: int):
        with transaction.atomic():
            game = game_lock(game_id=game_id)
            seat = selectors.game_seat_of(game=game, user=request.user)
            if seat is None:
                raise ApiError(ErrorCode.PERMISSION_DENIED, "You are not seated in this game.")
            game.last_seq += 1
            work = GameWork(game=game)
            data = {"type": "bench", "seat": seat}
            row = Event(game=game, seq=game.last_seq, type="bench", data=data, version=game.version)
            work.events_append([row])
            work.flush()  # through the deal's one writer, as a move (games/work.py)
            work.commit(None)
        return Response({"id": game.pk, "version": game.version, "last_seq": game.last_seq})
