import hashlib
import secrets

from django.conf import settings
from django.contrib.auth.models import AbstractUser, UserManager
from django.db import models

from accounts.usernames import username_key, username_skeleton
from infra.json_field import OrjsonField


class CaseInsensitiveUserManager(UserManager):
    """Logins find `Alice` for `alice`: a name is looked up by its key (accounts/usernames.py), the
    form the unique constraint and the sign-in lock-out use too."""

    def get_by_natural_key(self, username):
        return self.get(username_key=username_key(username))


class UsernameKeyField(models.TextField):
    """`username` in the form names are compared in (accounts/usernames.py `username_key`), set from
    it whenever a user is saved, as `auto_now` sets a date: it cannot drift from the name."""

    def pre_save(self, model_instance, add):
        value = username_key(model_instance.username)
        setattr(model_instance, self.attname, value)
        return value


class UsernameSkeletonField(models.TextField):
    """`username`'s Unicode TR 39 skeleton (accounts/usernames.py `username_skeleton`), set from it
    whenever a user is saved, like `UsernameKeyField`. Indexed, not unique: a look-alike of an existing
    name is refused when a name is chosen (one indexed lookup), but rows made before the rule may
    share one."""

    def pre_save(self, model_instance, add):
        value = username_skeleton(model_instance.username)
        setattr(model_instance, self.attname, value)
        return value


class User(AbstractUser):
    # Unique: two names that compare equal cannot both exist, however they are spelled.
    username_key = UsernameKeyField(unique=True, editable=False)
    username_skeleton = UsernameSkeletonField(db_index=True, editable=False, default="")
    is_guest = models.BooleanField(default=False)
    # A bot user (docs/matchmaking.md) has no usable password and plays from the worker through the same
    # service path as a player's move.
    is_bot = models.BooleanField(default=False)
    # An integrator's bot (docs/integrations.md): plays through the API with a `play` token, like a person.
    # The server's own seat-filling bots have no owner and never sign in.
    bot_owner = models.ForeignKey(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="bots",
        help_text="The integrator this bot account belongs to (empty: not an integrator's bot).",
    )

    objects = CaseInsensitiveUserManager()

    @property
    def is_server_bot(self) -> bool:
        """A seat the server plays itself (not an integrator's bot, which plays through the API)."""
        return self.is_bot and self.bot_owner_id is None

    class Meta(AbstractUser.Meta):
        swappable = "AUTH_USER_MODEL"


class TokenKind(models.TextChoices):
    LOGIN = "login"
    PERSONAL = "personal", "personal access token"


class AuthToken(models.Model):
    """One bearer token; only its hash is stored, so a database leak yields no usable token.

    A login token expires TOKEN_TTL_DAYS after its last use (sliding; accounts.selectors.
    token_get_active) and carries every scope its user may have (`scopes` empty). A personal access
    token (docs/integrations.md) has a name, its scopes and a fixed expiry; `prefix` (the key's first
    characters) lets its owner recognise it."""

    key_hash = models.CharField(max_length=64, unique=True)
    kind = models.CharField(max_length=16, choices=TokenKind.choices, default=TokenKind.LOGIN)
    name = models.CharField(max_length=100, blank=True)
    # A login token's device, as the client named it at sign-in (`device`): how its owner tells his
    # sessions apart in `GET auth/tokens` and revokes the one of a lost phone.
    device = models.CharField(max_length=100, blank=True)
    prefix = models.CharField(max_length=16, blank=True)
    scopes = models.JSONField(null=True, blank=True, help_text="Empty: every scope the user may have.")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="auth_tokens")
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField()
    last_used_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"token {self.pk} of {self.user_id}"

    @staticmethod
    def new_key() -> str:
        return secrets.token_hex(20)

    # Personal access tokens are recognisable in a leak scan or a log (like GitHub's `ghp_`).
    PERSONAL_PREFIX = "bhp_"
    PREFIX_LENGTH = 12

    @classmethod
    def new_personal_key(cls) -> str:
        return cls.PERSONAL_PREFIX + secrets.token_hex(20)

    @staticmethod
    def hash_key(key: str) -> str:
        return hashlib.sha256(key.encode()).hexdigest()


class Rating(models.Model):
    """A player's skill in one preset (openskill Plackett-Luce); ordinal = mu - 3 sigma ranks players."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings")
    preset = models.CharField(max_length=32)
    mu = models.FloatField()
    sigma = models.FloatField()
    ordinal = models.FloatField(db_index=True)
    deals = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "preset"], name="rating_unique_user_preset")]
        indexes = [models.Index(fields=["preset", "-ordinal"], name="rating_preset_ordinal")]

    def __str__(self) -> str:
        return f"{self.user_id} {self.preset} {self.mu:.1f}/{self.sigma:.2f}"


class RatingChange(models.Model):
    """One deal's effect on one player's rating. Unique per (game, user): a deal is rated once.

    `game_id` is a plain integer so that accounts depends on no other app (docs/architecture.md)."""

    game_id = models.BigIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes"
    )
    preset = models.CharField(max_length=32)
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    result = models.SmallIntegerField(help_text="1 won, 0 draw, -1 lost (this player's side).")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game_id", "user"], name="rating_change_unique_game_user")
        ]
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"game {self.game_id} user {self.user_id}: {self.mu_before:.1f} -> {self.mu_after:.1f}"


class SideBias(models.Model):
    """A learned pseudo-player on the emperor's side, per preset and team shape ("2v3", "1v4"), so that
    the model predicts 50/50 between equal players whatever advantage the side itself has."""

    preset = models.CharField(max_length=32)
    shape = models.CharField(max_length=8)
    mu = models.FloatField()
    sigma = models.FloatField()
    deals = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["preset", "shape"], name="side_bias_unique_preset_shape")
        ]
        verbose_name_plural = "side biases"

    def __str__(self) -> str:
        return f"{self.preset} {self.shape} bias {self.mu:.1f}"


class FeedCursor(models.Model):
    """The newest seq of a user's feed; its row lock numbers appends one at a time (accounts/feed.py)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True)
    last_seq = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"feed of {self.user_id} at {self.last_seq}"


class FeedEvent(models.Model):
    """One entry of a user's feed (docs/matchmaking.md "Your feed"): everything addressed to him, in order."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="feed")
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=32)
    data = OrjsonField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "seq"], name="feed_event_unique_user_seq")]
        ordering = ["user", "seq"]

    def __str__(self) -> str:
        return f"{self.user_id}#{self.seq} {self.type}"


class SanctionKind(models.TextChoices):
    BAN = "ban", "ban (every request refused)"
    QUEUE_BAN = "queue_ban", "queue ban (no tickets, no joins)"


class Sanction(models.Model):
    """A moderator's restriction of a user (docs/moderation.md). Active while not revoked and not past
    `expires_at`: the time alone ends it, no job has to run."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sanctions")
    kind = models.CharField(max_length=16, choices=SanctionKind.choices)
    reason = models.TextField()
    moderator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(null=True, blank=True, help_text="Empty: until revoked.")
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    revoke_note = models.TextField(blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "kind"], name="sanction_user_kind")]
        permissions = [("revoke_sanction", "Can revoke a sanction")]

    def __str__(self) -> str:
        return f"{self.kind} of {self.user_id} ({self.pk})"


class ModerationActionKind(models.TextChoices):
    SANCTION = "sanction"
    REVOKE = "revoke"
    ABORT = "abort"
    DISMISS = "dismiss"
    REMOVE_PLAYER = "remove_player"
    FOUL = "foul"
    COLLUSION = "collusion"
    # A sanction or revoke the rules refused (docs/moderation.md "Who may sanction whom"); `details`
    # says what was attempted and why it was refused.
    REFUSED = "refused"
    # A player deleted his own account (DELETE me, docs/client-guide.md "Accounts"): the moderator
    # column names the account itself; `details` says what was erased and what kept.
    ACCOUNT_DELETE = "account_delete"


class ModerationAction(models.Model):
    """The append-only audit log of staff actions (docs/moderation.md `moderation/audit`).

    Targets are named by type and id, never by a foreign key, so that accounts depends on no other
    app and an entry outlives what it names. `subject_user_id` is the player concerned, if any (the
    `?user=` filter). On PostgreSQL a trigger refuses UPDATE and DELETE (migration 0007)."""

    moderator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    action = models.CharField(max_length=32, choices=ModerationActionKind.choices)
    target_type = models.CharField(max_length=32)
    target_id = models.BigIntegerField()
    subject_user_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    reason = models.TextField()
    details = models.JSONField(default=dict, blank=True)
    source = models.CharField(max_length=8, help_text="api or admin")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "moderation action"

    def __str__(self) -> str:
        return f"{self.action} {self.target_type} {self.target_id} by {self.moderator_id}"


# The webhook models live with the webhook code; Django finds them through this module.
from accounts.webhooks.models import Webhook, WebhookDelivery, WebhookMessage  # noqa: E402,F401
