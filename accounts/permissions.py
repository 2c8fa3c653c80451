from rest_framework.permissions import SAFE_METHODS, BasePermission


class IsNotBanned(BasePermission):
    """A banned user may read but not write (moderators set `banned` in the admin)."""

    message = "This account is banned."

    def has_permission(self, request, view) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return not getattr(request.user, "banned", False)
