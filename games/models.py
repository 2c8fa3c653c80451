from django.conf import settings
from django.db import models

from infra.json_field import LazyOrjsonField, OrjsonField


class GameStatus(models.TextChoices):
    RUNNING = "running"
    OVER = "over"
    VOID = "void"
    ABORTED = "aborted"


class UnratedReason(models.TextChoices):
    """Why a finished deal changed no rating (docs/matchmaking.md "Rated deals")."""

    NOT_SCORED = "not_scored", "not scored: void, aborted, all five on trustee, or no sides"
    UNRATED_TABLE = "unrated_table", "a table matched from unrated tickets (a party)"
    PRIVATE_TABLE = "private_table", "a private table a player made (hand-picked opponents)"
    FEW_PLAYERS = "few_players", "too few seats played by established accounts, not on trustee"


def five_false() -> list[bool]:
    return [False] * 5


class Game(models.Model):
    """One deal. `setup` and `state` hold hidden cards: only selectors that build views read them."""

    table = models.ForeignKey("matchmaking.Table", on_delete=models.CASCADE, related_name="games")
    number = models.PositiveIntegerField(
        help_text="Index of this deal at its table, from 0 (void deals count)."
    )
    preset = models.CharField(max_length=32)
    options = OrjsonField(default=dict)
    # The keyword arguments given to engine.new_deal, the drawn seed included: with the action log
    # they reproduce the deal (engine.replay).
    setup = OrjsonField()
    state = LazyOrjsonField()
    version = models.PositiveIntegerField(default=0)
    last_seq = models.PositiveIntegerField(default=0, help_text="seq of the newest event (0: none).")
    status = models.CharField(max_length=16, choices=GameStatus.choices, default=GameStatus.RUNNING)
    deadline = models.DateTimeField(null=True, blank=True)
    # When the one deadline task in flight for this deal is due (games/timers.py "arm"): a move that
    # leaves the deadline at or after it sends no task; the task, when due, waits again if needed.
    timer_at = models.DateTimeField(null=True, blank=True, editable=False)
    # When the bot seats prompted now are due to act (their task's countdown); None when no bot is
    # prompted. The sweep acts for bots whose task was lost (games.services.games_bots_sweep).
    bots_due_at = models.DateTimeField(null=True, blank=True, editable=False, db_index=True)
    # Who played each seat of this deal, fixed when it was dealt: a player who leaves keeps his seat
    # in the record (he is scored, rated and penalised for it) and is marked in `left`.
    seat_user_ids = OrjsonField()
    players = OrjsonField(help_text="Usernames by seat, as seated when the deal started.")
    bots = OrjsonField(default=five_false, help_text="Five booleans: the seat is played by a bot user.")
    left = OrjsonField(default=five_false, help_text="Five booleans: the seat's player left mid-deal.")
    trustee = OrjsonField(default=list, help_text="Five booleans: the seat is on 托管.")
    trustee_entries = OrjsonField(default=list, help_text="Times each seat entered trustee this deal.")
    final = OrjsonField(null=True, blank=True, help_text="engine.final_view once the deal is over.")
    # docs/rules.md §5: a deal that ends with all five seats on trustee is kept but not counted.
    unscored = models.BooleanField(
        default=False, help_text="Ended with all five seats on trustee: not added to scores, not rated."
    )
    # Set by the rating task when it judged the deal and did not rate it (games.services.game_ratings_update).
    unrated_reason = models.CharField(
        max_length=16,
        choices=UnratedReason.choices,
        blank=True,
        default="",
        # In the column too: processes of the previous release (a rolling deploy) insert games without it.
        db_default="",
        help_text="Why the rating task did not rate this deal (blank: rated, or not judged yet).",
    )
    # The deal's end as an outbox row (docs/architecture.md "The end of a deal"): set when the deal
    # finishes, in the transaction that finished it; the table's own step (matchmaking) clears it
    # when it has tallied the deal. The beat sweep takes any left set (a lost task, a worker down).
    table_pending = models.BooleanField(
        default=False,
        db_default=False,
        help_text="Finished, and its table has not taken the result yet.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["table", "number"], name="game_unique_table_number")]
        indexes = [
            models.Index(
                fields=["finished_at"], condition=models.Q(table_pending=True), name="game_table_pending"
            )
        ]
        permissions = [("view_hidden_cards", "Can see hands, seeds and private events of running deals")]

    def __str__(self) -> str:
        return f"game {self.pk} (table {self.table_id} deal {self.number})"


def table_model() -> type[models.Model]:
    """The table a game belongs to (matchmaking.Table), without games importing matchmaking, which
    builds on games."""
    return Game._meta.get_field("table").related_model


class GamePlayer(models.Model):
    """Who played one seat of one deal, written when it is dealt: the index behind a player's game
    history (`GET users/{id}/games`). `Game.seat_user_ids` says the same per deal; this row answers
    "which deals did this user play" with an index, on every database."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seat_players")
    seat = models.PositiveSmallIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    is_bot = models.BooleanField(help_text="The seat was played by a bot user.")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "seat"], name="gameplayer_unique_game_seat")]
        indexes = [models.Index(fields=["user", "-id"], name="gameplayer_user_newest")]

    def __str__(self) -> str:
        return f"user {self.user_id} at seat {self.seat} of game {self.game_id}"


class Event(models.Model):
    """The log of a deal. `data` is the event as shown to clients (its `private_to` says to whom)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=32)
    data = OrjsonField()
    # Set on the first event of each applied action: [seat, action dict]. The action log read back
    # from these rows is what engine.replay consumes.
    action = OrjsonField(null=True, blank=True)
    version = models.PositiveIntegerField(help_text="The game version once this event had happened.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "seq"], name="event_unique_game_seq")]
        ordering = ["game", "seq"]

    def __str__(self) -> str:
        return f"{self.game_id}#{self.seq} {self.type}"


class IdempotencyKey(models.Model):
    """A stored response for `Idempotency-Key`, per user (docs/client-guide.md)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=255)
    request_hash = models.CharField(max_length=64)
    status_code = models.PositiveSmallIntegerField()
    body = OrjsonField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "key"], name="idempotency_unique_user_key")]

    def __str__(self) -> str:
        return f"{self.user_id}:{self.key}"


class ServiceHeartbeat(models.Model):
    """When a process of the named kind last showed it was running (games/clock.py): the turn timers'
    row tells how long they stood still through an outage, so that time is not charged to players."""

    name = models.CharField(max_length=32, primary_key=True)
    at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.name} at {self.at:%Y-%m-%d %H:%M:%S}"
