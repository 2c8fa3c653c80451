"""JSON rendering with orjson (docs/scaling.md "Where the time goes").

The same JSON clients got from DRF's JSONRenderer (compact, UTF-8, not ASCII-escaped; the
serializers already turn datetimes into ISO strings), rendered several times faster. One byte-level
difference: U+2028/U+2029 are written as themselves, not escaped (JSON allows both; DRF escapes them
for embedding in JavaScript, which no client of this API does). Anything orjson does not know
natively (and datetimes, whose ISO form DRF writes with `Z`) goes through DRF's own encoder, so
nothing changes shape.
"""

import orjson
from rest_framework.renderers import JSONRenderer
from rest_framework.utils.encoders import JSONEncoder

_drf_default = JSONEncoder().default
_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_NON_STR_KEYS


def render_json(data) -> bytes:
    """An answer's JSON bytes, as every JSON answer of the API has them (the event server's too)."""
    return orjson.dumps(data, default=_drf_default, option=_OPTIONS)


class ORJSONRenderer(JSONRenderer):
    def render(self, data, accepted_media_type=None, renderer_context=None) -> bytes:
        if data is None:
            return b""
        if self.get_indent(accepted_media_type or "", renderer_context or {}):
            return super().render(data, accepted_media_type, renderer_context)  # ?indent= for humans
        return render_json(data)
