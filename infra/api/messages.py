"""The error `message` in the reader's language (docs/client-guide.md §7): codes never change, only
the words for people do.

A message with an entry of its own in the catalogue (config/locale) is translated as it is; any
other (most carry the details of one request) gives way, outside English, to its code's sentence
below. Django's LocaleMiddleware picks the language for the API; the event server, outside Django's
middleware, picks it from the same cookie and `Accept-Language` (`language_of`).
"""

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from infra.api.errors import ErrorCode

CODE_MESSAGES = {
    ErrorCode.INVALID_REQUEST: _("The request is malformed."),
    ErrorCode.NOT_AUTHENTICATED: _("Sign in first: send your bearer token."),
    ErrorCode.PERMISSION_DENIED: _("You may not do this."),
    ErrorCode.BANNED: _("Your account is banned."),
    ErrorCode.MISSING_SCOPE: _("Your token lacks the scope this needs."),
    ErrorCode.NOT_FOUND: _("Not found."),
    ErrorCode.METHOD_NOT_ALLOWED: _("This method is not allowed here."),
    ErrorCode.NOT_ACCEPTABLE: _("The server cannot answer in the format you asked for."),
    ErrorCode.UNSUPPORTED_MEDIA_TYPE: _("Send JSON."),
    ErrorCode.NOT_YOUR_TURN: _("It is not your turn."),
    ErrorCode.WRONG_PHASE: _("That action does not belong to this phase of the deal."),
    ErrorCode.STALE_VERSION: _("The game moved on: read it again and decide again."),
    ErrorCode.GAME_OVER: _("The deal is over."),
    ErrorCode.GAME_NOT_OVER: _("The deal is not over yet."),
    ErrorCode.SEAT_TAKEN: _("That seat is taken."),
    ErrorCode.TABLE_FULL: _("The table is full."),
    ErrorCode.TABLE_CLOSED: _("The table is closed."),
    ErrorCode.TRUSTEE_LOCKED: _("Your seat stays on 托管 for the rest of this deal."),
    ErrorCode.IDEMPOTENCY_KEY_REUSED: _("This Idempotency-Key was used with another request."),
    ErrorCode.NOT_A_PLAY: _("Those cards are not a play."),
    ErrorCode.DOES_NOT_BEAT: _("That play does not beat the table."),
    ErrorCode.MUST_PLAY_LAST: _("Those cards must be played last (憋)."),
    ErrorCode.CANNOT_PASS_LEAD: _("You lead: you cannot pass."),
    ErrorCode.CARD_NOT_IN_HAND: _("You do not hold those cards."),
    ErrorCode.NOT_ALLOWED: _("The rules do not allow this now."),
    ErrorCode.BAD_CALL: _("You cannot call that card."),
    ErrorCode.THROTTLED: _("Too many requests: wait a little."),
    ErrorCode.SERVER_ERROR: _("Server error."),
    ErrorCode.TICKET_EXISTS: _("You already have a waiting ticket."),
    ErrorCode.TICKET_MATCHED: _("The ticket was already matched."),
    ErrorCode.TOO_MANY_OPEN_TABLES: _("You have too many tables still waiting for players."),
    ErrorCode.TOO_MANY_TOKENS: _("You have too many personal access tokens: revoke one first."),
    ErrorCode.SERVICE_UNAVAILABLE: _("The server cannot answer now; retry shortly."),
    ErrorCode.FEED_CURSOR_AHEAD: _("Your feed has no entry that far: follow it from last_seq."),
    ErrorCode.FEED_CURSOR_EXPIRED: _(
        "Entries after your cursor are gone: read me/active, then follow from last_seq."
    ),
    ErrorCode.UPGRADE_REQUIRED: _("This app is too old for the server: update it."),
}


def localized_message(code: str, message: str) -> str:
    """`message` in the active language (LocaleMiddleware's, or one given by `translation.override`)."""
    language = translation.get_language() or settings.LANGUAGE_CODE
    if language.split("-")[0] == "en":
        return message
    translated = gettext(message) if message else message
    if translated != message:
        return translated
    generic = CODE_MESSAGES.get(code)
    return str(generic) if generic is not None else message


def language_of(*, cookie: str | None, accept_language: str | None) -> str:
    """The language LocaleMiddleware would pick without a session: the language cookie (the web
    client's switch), else the best of `Accept-Language`, else LANGUAGE_CODE."""
    candidates = [cookie] if cookie else []
    weighted = []
    for position, part in enumerate((accept_language or "").split(",")):
        tag, _sep, params = part.strip().partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                quality = 0.0
        if tag and tag != "*" and quality > 0:
            weighted.append((-quality, position, tag))
    candidates += [tag for _q, _p, tag in sorted(weighted)]
    for candidate in candidates:
        try:
            return translation.get_supported_language_variant(candidate.strip().lower())
        except LookupError:
            continue
    return settings.LANGUAGE_CODE
