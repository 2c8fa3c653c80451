import secrets

from django.conf import settings
from django.db import models
from django.db.models import Value


class TableStatus(models.TextChoices):
    WAITING = "waiting"
    PLAYING = "playing"
    FINISHED = "finished"
    DISSOLVED = "dissolved"


def new_table_code() -> str:
    return secrets.token_hex(4)


class BotLevel(models.TextChoices):
    """How the server's bots play at a table (docs/bots.md "Levels"); blank: the BOTS_LEVEL setting."""

    EASY = "easy"
    NORMAL = "normal"
    HARD = "hard"


class TableClosedReason(models.TextChoices):
    FINISHED = "finished", "its deals were played"
    PLAYER_LEFT = "player_left", "a seat was empty at the end of a deal"
    TRUSTEE = "trustee", "a seat was on trustee at the end of a deal"
    VOID_LIMIT = "void_limit", "too many void deals in a row"
    ABORTED = "aborted", "a moderator aborted its deal"
    NO_HUMANS = "no_humans", "only the server's bots were seated at the end of a deal"


# The reason of a `table_closed` feed entry sent to one player only: he stayed on 托管 past the
# table's return time and a bot took his seat; the table itself plays on (docs/rules.md §5 D).
SEAT_TAKEN_BY_BOT = "away"


# docs/rules.md §5 D: the deadlines of a prompt, in play and otherwise, unless a table sets its own.
DEFAULT_PLAY_SECONDS = 20
DEFAULT_PROMPT_SECONDS = 15
# docs/rules.md §5 D: the pause between a deal's end and the next deal (a player reads the result
# without the next deal's first prompt counting down), and how long a seat still on 托管 at a deal's
# end has to come back before the table dissolves or a bot takes the seat.
DEFAULT_DEAL_PAUSE_SECONDS = 8
DEFAULT_RETURN_SECONDS = 90


class Table(models.Model):
    creator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="created_tables"
    )
    code = models.CharField(max_length=16, default=new_table_code, help_text="Invitation code for joining.")
    preset = models.CharField(max_length=32)
    options = models.JSONField(default=dict)
    play_seconds = models.PositiveIntegerField(default=DEFAULT_PLAY_SECONDS)
    prompt_seconds = models.PositiveIntegerField(default=DEFAULT_PROMPT_SECONDS)
    deal_pause_seconds = models.PositiveIntegerField(
        default=DEFAULT_DEAL_PAUSE_SECONDS,
        db_default=DEFAULT_DEAL_PAUSE_SECONDS,
        help_text="Seconds between a deal's end and the next deal (0: at once).",
    )
    return_seconds = models.PositiveIntegerField(
        default=DEFAULT_RETURN_SECONDS,
        db_default=DEFAULT_RETURN_SECONDS,
        help_text="Seconds a seat on 托管 at a deal's end has to come back (docs/rules.md §5 D).",
    )
    # When the next deal is dealt (matchmaking.services.table_deal_next); null while a deal runs,
    # before the first deal and once the table is closed.
    next_deal_at = models.DateTimeField(null=True, blank=True, db_index=True)
    # By seat: until when a seat found on 托管 at a deal's end may come back (an ISO time), or null.
    # db_default: a row inserted by code that predates the field (a rolling deploy's old web role;
    # bench/api_moves.py's baseline server on the same database) gets an empty list, not an error.
    return_by = models.JSONField(
        default=list, db_default=Value([], output_field=models.JSONField()), blank=True
    )
    deals = models.PositiveIntegerField(help_text="Deals to play; 0: until a player leaves.")
    private = models.BooleanField(default=False)
    # Staff-only fixed deals (hands or seeds), used in order for the table's successive deals.
    setups = models.JSONField(default=list, blank=True)
    status = models.CharField(max_length=16, choices=TableStatus.choices, default=TableStatus.WAITING)
    scores = models.JSONField(default=list, help_text="Running totals by seat.")
    deals_done = models.PositiveIntegerField(default=0, help_text="Scored (non-void) deals.")
    closed_reason = models.CharField(max_length=16, choices=TableClosedReason.choices, blank=True)
    bots_replace_leavers = models.BooleanField(
        default=False, help_text="A player who leaves mid-match is replaced by a bot at the next deal."
    )
    bot_level = models.CharField(
        max_length=8,
        choices=BotLevel.choices,
        blank=True,
        default="",
        # A default in the column too: processes of the previous release (a rolling deploy) insert
        # tables and tickets without this field.
        db_default="",
        help_text="How the server's bots play here (docs/bots.md); blank: the BOTS_LEVEL setting.",
    )
    last_seq = models.PositiveIntegerField(default=0, help_text="seq of the newest table event (0: none).")
    matched = models.BooleanField(
        default=False, help_text="Seated by the matchmaker: full at once, so never listed in the lobby."
    )
    rated = models.BooleanField(
        default=True, help_text="False for a table matched from unrated tickets: its deals are not rated."
    )
    boards = models.BooleanField(
        default=False,
        db_default=False,  # as bot_level: a previous release's processes insert tables without it
        help_text=(
            "Duplicate boards (docs/tournaments.md): every deal starts at seat 0 with no tribute or "
            "start-seat carry-over, a void deal is not dealt again, and the table closes once it has "
            "dealt `deals` deals."
        ),
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"table {self.pk} ({self.preset})"


class Seat(models.Model):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    seat = models.PositiveSmallIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="seats")
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "seat"], name="seat_unique_table_seat"),
            models.UniqueConstraint(fields=["table", "user"], name="seat_unique_table_user"),
            models.CheckConstraint(condition=models.Q(seat__lte=4), name="seat_number_0_to_4"),
        ]
        ordering = ["table", "seat"]

    def __str__(self) -> str:
        return f"table {self.table_id} seat {self.seat}"


class PenaltyReason(models.TextChoices):
    LEFT = "left", "left a running deal"
    REMOVED = "removed", "removed by a moderator"
    # docs/rules.md §3.5 (campus): talking, noise, peeking; recorded at 0 points, the second one removes.
    FOUL = "foul", "a foul (campus competition rules)"
    # docs/rules.md §3.6 (laowang 串牌): exposing cards or collusion; a card discarded before the next deal.
    COLLUSION = "collusion", "串牌: a card discarded before the next deal (laowang)"


class Penalty(models.Model):
    """Points taken off a seat's running score (docs/rules.md §5: 40 for leaving or removal, every preset)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="penalties")
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="penalties")
    game = models.ForeignKey("games.Game", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    seat = models.PositiveSmallIntegerField()
    points = models.IntegerField(help_text="Points taken off (positive).")
    reason = models.CharField(max_length=16, choices=PenaltyReason.choices)
    moderator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # A `collusion` penalty is served by a discard at the start of the table's next deal: that deal.
    # Null until then (or for good, if the table never deals again while he sits there).
    served_in = models.ForeignKey(
        "games.Game",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="collusion: the deal that began with his discard.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "penalties"

    def __str__(self) -> str:
        return f"-{self.points} {self.user_id} at table {self.table_id} ({self.reason})"


class TableEvent(models.Model):
    """The table's public log (docs/matchmaking.md "Table events"): seating, deals started and over,
    closing."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=32)
    data = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["table", "seq"], name="table_event_unique_table_seq")]
        ordering = ["table", "seq"]

    def __str__(self) -> str:
        return f"table {self.table_id}#{self.seq} {self.type}"


class ReportReason(models.TextChoices):
    CHEATING = "cheating"
    COLLUSION = "collusion"
    ABUSE = "abuse"
    STALLING = "stalling"
    OTHER = "other"


class ReportStatus(models.TextChoices):
    OPEN = "open"
    ACTIONED = "actioned"
    DISMISSED = "dismissed"


class Report(models.Model):
    """A player's report of another (docs/moderation.md). It is `actioned` when a sanction or an abort names
    it, `dismissed` by a moderator's decision; both record who and when."""

    reporter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reports_received"
    )
    game = models.ForeignKey("games.Game", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    reason = models.CharField(max_length=16, choices=ReportReason.choices)
    text = models.TextField(blank=True, max_length=2000)
    status = models.CharField(max_length=16, choices=ReportStatus.choices, default=ReportStatus.OPEN)
    created_at = models.DateTimeField(auto_now_add=True)
    handled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    handled_at = models.DateTimeField(null=True, blank=True)
    note = models.TextField(blank=True, help_text="The moderator's note when handling it.")

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status", "-id"], name="report_status_id")]
        # The moderators' powers over games and tables (the `moderators` group, migration 0004).
        permissions = [
            ("dismiss_report", "Can dismiss a report"),
            ("abort_game", "Can abort a running deal"),
            ("remove_player", "Can remove a player from a table"),
        ]

    def __str__(self) -> str:
        return f"report {self.pk} on {self.user_id} ({self.reason}, {self.status})"


class TicketStatus(models.TextChoices):
    WAITING = "waiting"
    MATCHED = "matched"
    CANCELLED = "cancelled"
    EXPIRED = "expired"


class Ticket(models.Model):
    """A quick-match request (docs/matchmaking.md "Tickets"): waits until the matcher seats it at a table."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tickets")
    status = models.CharField(max_length=16, choices=TicketStatus.choices, default=TicketStatus.WAITING)
    preset = models.CharField(max_length=32)
    options = models.JSONField(default=dict, blank=True)
    rated = models.BooleanField(default=True)
    bots = models.BooleanField(default=True, help_text="May be seated with bots after the bots wait.")
    bot_level = models.CharField(
        max_length=8,
        choices=BotLevel.choices,
        blank=True,
        default="",
        db_default="",  # as Table.bot_level
        help_text="Seated only with tickets asking the same bot level (blank: the BOTS_LEVEL setting).",
    )
    party = models.CharField(
        max_length=16, blank=True, help_text="Tickets with the same party code sit at one table (unrated)."
    )
    rating = models.FloatField(help_text="The user's ordinal in this preset when the ticket was made.")
    created_at = models.DateTimeField(auto_now_add=True)
    last_polled_at = models.DateTimeField(help_text="A waiting ticket not polled for the TTL expires.")
    matched_at = models.DateTimeField(null=True, blank=True)
    table = models.ForeignKey(Table, on_delete=models.SET_NULL, null=True, blank=True, related_name="tickets")
    game = models.ForeignKey("games.Game", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    seat = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user"],
                condition=models.Q(status="waiting"),
                name="ticket_one_waiting_per_user",
            ),
        ]
        indexes = [models.Index(fields=["status", "preset"], name="ticket_status_preset")]
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"ticket {self.pk} of {self.user_id} ({self.preset}, {self.status})"


class Invitation(models.Model):
    """A private table's creator invites a player (`POST tables/{id}/invites`, docs/notifications.md):
    the invitee's feed gets an `invited` entry with the table's code, which reaches his phone and his
    inbox. He may decline it; a declined invitation is not sent again."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="invitations")
    inviter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    invitee = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="invitations"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    declined_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "invitee"], name="invitation_unique_table_invitee")
        ]

    def __str__(self) -> str:
        return f"invitation of {self.invitee_id} to table {self.table_id}"
