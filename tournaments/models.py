"""Tournaments (docs/tournaments.md): an event many players enter, played in rounds at tables of five."""

from django.conf import settings
from django.db import models


class TournamentFormat(models.TextChoices):
    # The seed's 保皇比赛 (docs/rules.md campus preset): tables drawn by lot every round.
    DRAW = "draw"
    # Round 1 by rating, later rounds by standing, avoiding repeated tablemates where possible.
    SWISS = "swiss"


class TournamentStatus(models.TextChoices):
    REGISTERING = "registering"
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"


class CancelledReason(models.TextChoices):
    TOO_FEW_PLAYERS = "too_few_players", "fewer than two players at the start"
    STAFF = "staff", "cancelled by staff"


class Tournament(models.Model):
    name = models.CharField(max_length=80)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    preset = models.CharField(max_length=32)
    options = models.JSONField(default=dict, blank=True)
    format = models.CharField(max_length=8, choices=TournamentFormat.choices)
    duplicate = models.BooleanField(
        default=False, help_text="Every table of a round plays the same boards (the same seeds)."
    )
    rounds = models.PositiveSmallIntegerField()
    deals_per_round = models.PositiveSmallIntegerField()
    starts_at = models.DateTimeField(
        null=True, blank=True, help_text="Started by beat then; blank: by staff."
    )
    max_players = models.PositiveIntegerField()
    bots_fill = models.BooleanField(
        default=True,
        help_text="Bots fill the last tables (at most three a table); else extra players sit out.",
    )
    rated = models.BooleanField(default=True)
    status = models.CharField(
        max_length=12, choices=TournamentStatus.choices, default=TournamentStatus.REGISTERING
    )
    cancelled_reason = models.CharField(max_length=16, choices=CancelledReason.choices, blank=True)
    current_round = models.PositiveSmallIntegerField(default=0, help_text="0: not started.")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status", "starts_at"], name="tournament_status_starts")]

    def __str__(self) -> str:
        return f"tournament {self.pk} {self.name}"


class Entry(models.Model):
    """A player entered in a tournament. Bots are seated at tables, never entered (never ranked)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    joined_at = models.DateTimeField(auto_now_add=True)
    withdrawn_at = models.DateTimeField(
        null=True, blank=True, help_text="Left after the start: not seated again, not ranked."
    )
    sent_off = models.BooleanField(
        default=False, help_text="Two fouls (docs/rules.md §3.5): not seated again, not ranked."
    )
    rank = models.PositiveIntegerField(null=True, blank=True, help_text="Final rank once finished.")
    score = models.IntegerField(default=0, help_text="Final total score once finished.")
    matchpoints = models.IntegerField(default=0, help_text="Final matchpoints once finished (duplicate).")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tournament", "user"], name="entry_unique_tournament_user")
        ]
        ordering = ["tournament", "joined_at", "id"]
        verbose_name_plural = "entries"

    def __str__(self) -> str:
        return f"entry of {self.user_id} in tournament {self.tournament_id}"


class RoundStatus(models.TextChoices):
    """A round as the API shows it: `finished` once every table of it has closed."""

    RUNNING = "running"
    FINISHED = "finished"


class Round(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="round_set")
    number = models.PositiveSmallIntegerField(help_text="From 1.")
    # The deal seeds of a duplicate round, board by board: hidden until the round is over.
    seeds = models.JSONField(default=list, blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tournament", "number"], name="round_unique_number")]
        ordering = ["tournament", "number"]

    def __str__(self) -> str:
        return f"tournament {self.tournament_id} round {self.number}"


class RoundTable(models.Model):
    """One table of a round and who was seated where when it started (the holders of each position)."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="tables")
    number = models.PositiveSmallIntegerField(help_text="From 1 within the round.")
    table = models.OneToOneField("matchmaking.Table", on_delete=models.CASCADE, related_name="+")
    seats = models.JSONField(help_text="User ids by seat at the start of the round.")
    bots = models.JSONField(help_text="Five booleans: the seat was given to a bot.")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["round", "number"], name="round_table_unique_number")]
        ordering = ["round", "number"]

    def __str__(self) -> str:
        return f"{self.round} table {self.number}"
