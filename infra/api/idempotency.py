"""`Idempotency-Key` at the API edge, for every endpoint that takes one (docs/client-guide.md §6).

A view hands over what the key stands for (the request's meaning, already validated) and a function
that performs the request and returns its `Response`; this module owns the rest: the header's
bounds, the stored answer, the race between two requests carrying one key, and the replay. Services
know nothing of keys: they return domain results and raise ApiError, which the exception handler
maps to a status (infra/api/handler.py).

The key's row is inserted first, in the transaction that performs the request: a second request
with the same key (a retry racing the first) waits on the row's unique index until the first
commits, then finds the stored answer and replays it; if the first failed and rolled back, the
second performs the request itself. Only successful answers are stored (a refused request is safe to
repeat: what it may have committed before refusing, as a seat taken back from 托管, is done again as
a no-op). Keys are kept IDEMPOTENCY_KEY_RETENTION_HOURS and then
removed by the beat's sweep (idempotency_keys_sweep).

The rows live in the model named by settings.IDEMPOTENCY_KEY_MODEL (fields user, key, request_hash,
status_code, body, created_at), found through the app registry: infra sits below the apps.
"""

import hashlib
import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.apps import apps
from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from rest_framework import exceptions
from rest_framework.response import Response

from infra import wakeups
from infra.api.errors import ApiError, ErrorCode

KEY_HEADER = "Idempotency-Key"
# Marks an answer served from the store rather than from performing the request again (as Stripe's).
REPLAYED_HEADER = "Idempotent-Replayed"
KEY_MAX_LENGTH = 255
# For the schema's description of the header: the length checked below.
KEY_SCHEMA = {"type": "string", "minLength": 1, "maxLength": KEY_MAX_LENGTH}


def _store():
    return apps.get_model(settings.IDEMPOTENCY_KEY_MODEL)


def request_hash(meaning: dict) -> str:
    """What a key stands for: the request's meaning in one canonical form."""
    canonical = json.dumps(meaning, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def idempotent(request: Any, *, meaning: dict, perform: Callable[[], Response]) -> Response:
    """Answer `request` by `perform()`, or by the answer stored for its `Idempotency-Key`.

    `meaning` is what the request asks for (the operation, its path's ids, its validated body): the
    same key with another meaning is `409 idempotency_key_reused`. Without a key this is `perform()`.
    """
    key = request.headers.get(KEY_HEADER)
    if key is None:
        return perform()
    if not 0 < len(key) <= KEY_MAX_LENGTH:
        raise ApiError(ErrorCode.INVALID_REQUEST, f"{KEY_HEADER} must be 1 to {KEY_MAX_LENGTH} characters.")
    digest = request_hash(meaning)
    store = _store()
    refused = None
    try:
        # The publishes of the commit leave together when it is done (infra/wakeups.py).
        with wakeups.batched(), transaction.atomic():
            # The placeholder is never seen: it commits with the answer or is removed.
            row = store.objects.create(
                user=request.user, key=key, request_hash=digest, status_code=0, body={}
            )
            try:
                response = perform()
            except (ApiError, exceptions.APIException) as exc:
                if transaction.get_rollback():
                    raise  # the refusal came with a failed statement: nothing is kept
                # A refusal is not stored, and what the service committed before refusing stays
                # committed, as without a key (a move refused after it took its seat back from 托管,
                # docs/client-guide.md "Coming back"); a refusal that changed nothing commits nothing.
                refused = exc
                row.delete()
            else:
                store.objects.filter(pk=row.pk).update(status_code=response.status_code, body=response.data)
    except IntegrityError:
        # Another request stored this key first (this transaction is rolled back): its answer.
        stored = store.objects.filter(user=request.user, key=key).first()
        if stored is None:
            raise  # not the key's constraint
        if stored.request_hash != digest:
            raise ApiError(
                ErrorCode.IDEMPOTENCY_KEY_REUSED, f"This {KEY_HEADER} was used with another request."
            ) from None
        return Response(stored.body, status=stored.status_code, headers={REPLAYED_HEADER: "true"})
    if refused is not None:
        raise refused
    return response


def idempotency_keys_sweep(*, now=None) -> int:
    """Remove the keys older than IDEMPOTENCY_KEY_RETENTION_HOURS (run by beat); returns how many."""
    cutoff = (now or timezone.now()) - timedelta(hours=settings.IDEMPOTENCY_KEY_RETENTION_HOURS)
    deleted, _ = _store().objects.filter(created_at__lt=cutoff).delete()
    return deleted
