from django.http import QueryDict
from rest_framework import serializers

from infra.api.converters import MAX_ID


def _json_kind(value) -> type:
    # bool before int (a bool is an int in Python); a TextChoices member is a str.
    for kind in (bool, int, float, str):
        if isinstance(value, kind):
            return kind
    return type(value)


def _json_type_error(field: serializers.Field, value) -> str | None:
    """Why `value`, as parsed from JSON, is not of the type `field` declares (None: it is).

    DRF's fields coerce: CharField takes 0 as "0", BooleanField 0 as false, IntegerField "3" as 3,
    ChoiceField 6 as "6". A JSON body must carry the type the schema declares (docs/openapi.yaml),
    so a client that sends another is told, not silently converted."""
    if value is None:
        return None  # allow_null decides (DRF's own check)
    if isinstance(field, serializers.BooleanField):
        return None if isinstance(value, bool) else "Must be a JSON boolean."
    if isinstance(field, serializers.IntegerField):
        ok = isinstance(value, int) and not isinstance(value, bool)
        return None if ok else "Must be a JSON integer."
    if isinstance(field, serializers.FloatField | serializers.DecimalField):
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return None if ok else "Must be a JSON number."
    if isinstance(field, serializers.MultipleChoiceField):
        return None
    if isinstance(field, serializers.ChoiceField):
        # The choices' own types: a value of another type is no choice even when its text is one.
        ok = _json_kind(value) in {_json_kind(choice) for choice in field.choices}
        return None if ok else f'"{value}" is not a valid choice.'
    if isinstance(field, serializers.CharField):  # and its kinds: RegexField, EmailField, URLField...
        return None if isinstance(value, str) else "Must be a JSON string."
    if isinstance(field, serializers.ListField):
        if isinstance(value, list):
            errors = {
                index: [message]
                for index, item in enumerate(value)
                if (message := _json_type_error(field.child, item)) is not None
            }
            return None if not errors else errors
        return None  # DRF's own `not_a_list`
    return None


class StrictInputSerializer(serializers.Serializer):
    """Unknown fields are refused: `400 invalid_request` with `extra.fields.<name>: ["Unknown field."]`.
    In a JSON body each value must also be of its declared JSON type (a query string carries only
    text, which the fields parse)."""

    def to_internal_value(self, data):
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({name: ["Unknown field."] for name in unknown})
            if not isinstance(data, QueryDict):
                wrong = {}
                for name, field in self.fields.items():
                    if name in data and not field.read_only:
                        error = _json_type_error(field, data[name])
                        if error is not None:
                            wrong[name] = error if isinstance(error, dict) else [error]
                if wrong:
                    raise serializers.ValidationError(wrong)
        return super().to_internal_value(data)


class EmptyInputSerializer(StrictInputSerializer):
    """The body of an endpoint that takes none: absent or `{}`; any field in it is unknown (a 400)."""


def refuse_body_fields(request) -> None:
    EmptyInputSerializer(data=request.data or {}).is_valid(raise_exception=True)


class LongPollQueryInputSerializer(StrictInputSerializer):
    """`?after=&wait=` of a log followed by long-poll (the event server clamps the wait: events/logs.py)."""

    after = serializers.IntegerField(min_value=0, max_value=MAX_ID, required=False, default=0)
    wait = serializers.FloatField(min_value=0, required=False, default=0)
