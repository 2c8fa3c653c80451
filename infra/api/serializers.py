from rest_framework import serializers

from infra.api.converters import MAX_ID


class StrictInputSerializer(serializers.Serializer):
    """Unknown fields are refused: `400 invalid_request` with `extra.fields.<name>: ["Unknown field."]`."""

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
    """`?after=&wait=` of a log followed by long-poll (the event server clamps the wait: events/logs.py)."""

    after = serializers.IntegerField(min_value=0, max_value=MAX_ID, required=False, default=0)
    wait = serializers.FloatField(min_value=0, required=False, default=0)
