import hashlib
import secrets

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models


class User(AbstractUser):
    is_guest = models.BooleanField(default=False)
    # A bot user (CONTRACT §5) has no usable password and plays from the worker through the same
    # service path as a player's move.
    is_bot = models.BooleanField(default=False)
    # A banned user can still read, but every write answers 403 (accounts/permissions.py).
    banned = models.BooleanField(default=False)

    class Meta(AbstractUser.Meta):
        swappable = "AUTH_USER_MODEL"
        permissions = [("ban_user", "Can ban and unban users")]


class AuthToken(models.Model):
    """One bearer token; only its hash is stored, so a database leak yields no usable token."""

    key_hash = models.CharField(max_length=64, unique=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="auth_tokens")
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"token {self.pk} of {self.user_id}"

    @staticmethod
    def new_key() -> str:
        return secrets.token_hex(20)

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

    `game_id` is a plain integer so that accounts depends on no other app (STYLE.md layout)."""

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

    def __str__(self) -> str:
        return f"{self.preset} {self.shape} bias {self.mu:.1f}"


class FeedCursor(models.Model):
    """The newest seq of a user's feed; its row lock numbers appends one at a time (accounts/feed.py)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True)
    last_seq = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"feed of {self.user_id} at {self.last_seq}"


class FeedEvent(models.Model):
    """One entry of a user's feed (CONTRACT §5 "Your feed"): everything addressed to him, in order."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="feed")
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=32)
    data = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "seq"], name="feed_event_unique_user_seq")]
        ordering = ["user", "seq"]

    def __str__(self) -> str:
        return f"{self.user_id}#{self.seq} {self.type}"
