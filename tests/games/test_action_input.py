"""`games.apis.action_input_canonical`, the move's fast path past GameActionInputSerializer: for every
body it accepts, the serializer accepts it too and returns the same fields; anything it does not
accept goes to the serializer, which converts or refuses it (CONTRACT §4 "Games", POST actions)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from games.apis import GameActionInputSerializer, action_input_canonical

CODES = st.sampled_from(["9D", "10H", "SJ", "BJ", "SJ*", " 9D", "9D ", "", "ABCDE", "3S"])
ODD_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False), st.text(max_size=6), CODES
)
VALUES = st.one_of(CODES, ODD_VALUES, st.lists(st.one_of(CODES, ODD_VALUES), max_size=4))
BODIES = st.fixed_dictionaries(
    {
        "type": st.one_of(
            st.sampled_from(["play", "pass", "call", "solo", "fold", "Play", " play"]), ODD_VALUES
        )
    },
    optional={
        "cards": st.one_of(st.lists(CODES, max_size=3), st.lists(CODES, min_size=65, max_size=66), VALUES),
        "card": st.one_of(CODES, VALUES),
        "expected_version": st.one_of(st.integers(-2, 10**12), st.just(True), st.just("5"), st.just(5.0)),
        "extra": VALUES,
    },
)

# Bodies a client would send, with the small slips (padding, lengths, types) a fast path could miss.
CLOSE_BODIES = st.fixed_dictionaries(
    {"type": st.sampled_from(["play", "pass", "call", "solo"])},
    optional={
        "cards": st.lists(CODES, max_size=66),
        "card": st.one_of(st.none(), CODES),
        "expected_version": st.one_of(st.integers(-2, 10**12), st.just(True), st.just("5")),
    },
)


def serializer_answer(body):
    data = GameActionInputSerializer(data=body)
    return dict(data.validated_data) if data.is_valid() else None


@settings(max_examples=600, deadline=None)
@given(st.one_of(CLOSE_BODIES, BODIES))
def test_a_body_the_fast_path_accepts_is_one_the_serializer_accepts_the_same(body):
    fast = action_input_canonical(body)
    if fast is not None:
        assert fast == serializer_answer(body)


def test_what_clients_send_takes_the_fast_path():
    # Entries of `legal_actions` sent back as they are, with and without expected_version.
    for body in (
        {"type": "play", "cards": ["9D", "9D", "SJ*"], "expected_version": 5},
        {"type": "pass", "cards": [], "card": None, "expected_version": 0},
        {"type": "call", "card": "SJ"},
        {"type": "pass"},
    ):
        assert action_input_canonical(body) == serializer_answer(body) == body


def test_bodies_the_serializer_converts_or_refuses_are_left_to_it():
    for body in (
        {"type": "play", "cards": [" 9D"]},  # trimmed by the serializer
        {"type": "play", "cards": ["9D"], "expected_version": "5"},  # converted
        {"type": "pass", "cards": ["9D"]},  # refused: a pass has no cards
        {"type": "play", "card": "SJ"},  # refused: a play has no card
        {"type": "play", "expected_version": True},
        {"type": "play", "expected_version": -1},
        {"type": "play", "colour": "red"},  # unknown field
        {"type": "jump"},
        ["play"],
    ):
        assert action_input_canonical(body) is None
