import hashlib
import secrets

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models


class User(AbstractUser):
    is_guest = models.BooleanField(default=False)
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
