import copy

from rest_framework import serializers

# Fields that keep no state of their own while validating: the arguments they were made with, the
# name and parent `bind` gives them, and validators that are themselves stateless.
_LEAF_FIELDS = (
    serializers.BooleanField,
    serializers.CharField,
    serializers.ChoiceField,
    serializers.DateTimeField,
    serializers.FloatField,
    serializers.IntegerField,
)


def _field_copy(field: serializers.Field) -> serializers.Field:
    """A field for one serializer instance. DRF deep-copies every declared field per instance, which
    builds each field (and its validators) anew: a fifth of a move's input validation. A shallow
    copy of a leaf field, or of a list of leaves, validates the same: `bind` sets the copy's own
    name and parent, and what it shares with the declared field (validators, choices, a list's
    child) is only read. Anything else (nested serializers, whose fields reach the root's context)
    is deep-copied, as DRF does."""
    child = getattr(field, "child", None)
    leaf = isinstance(field, _LEAF_FIELDS) or (
        isinstance(field, serializers.ListField | serializers.DictField) and isinstance(child, _LEAF_FIELDS)
    )
    return copy.copy(field) if leaf else copy.deepcopy(field)


class StrictInputSerializer(serializers.Serializer):
    """Unknown fields are refused: `400 invalid_request` with `extra.fields.<name>: ["Unknown field."]`."""

    def get_fields(self):
        return {name: _field_copy(field) for name, field in self._declared_fields.items()}

    def to_internal_value(self, data):
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({name: ["Unknown field."] for name in unknown})
        return super().to_internal_value(data)


class EmptyInputSerializer(StrictInputSerializer):
    """The body of an endpoint that takes none: absent or `{}`; any field in it is unknown (a 400)."""


def refuse_body_fields(request) -> None:
    EmptyInputSerializer(data=request.data or {}).is_valid(raise_exception=True)


class LongPollQueryInputSerializer(StrictInputSerializer):
    """`?after=&wait=` of a log followed by long-poll (config/api/long_poll.py clamps the wait)."""

    after = serializers.IntegerField(min_value=0, required=False, default=0)
    wait = serializers.FloatField(min_value=0, required=False, default=0)
