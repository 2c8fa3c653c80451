from rest_framework import serializers


class StrictInputSerializer(serializers.Serializer):
    """An input serializer that rejects unknown fields (CONTRACT §3: an unknown field is a 400)."""

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
