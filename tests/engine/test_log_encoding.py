"""games/engine/serial.py: a state's log is encoded from its predecessor's encoding when it extends
it (the entries are shared); whatever the history of the objects, the stored log is the plain
encoding of every entry, and it round-trips."""

import random

from games import engine
from games.engine import serial


def _plain(log) -> list:
    return [[seat, [str(action.type), " ".join(action.cards), action.card]] for seat, action in log]


def _random_states(seed: int, preset: str = "weihai") -> list:
    rng = random.Random(seed)
    state = engine.new_deal(engine.preset(preset), seed=seed, start_seat=0, context=None)
    states = [state]
    while state.phase not in ("over", "void"):
        seat = engine.to_act(state)[0]
        legal = engine.legal_actions(state, seat)
        plays = [a for a in legal if a.type == "play"]
        action = rng.choice(plays) if plays and rng.random() < 0.8 else rng.choice(legal)
        state = engine.apply_action(state, seat, action)[0]
        states.append(state)
    return states


def test_every_state_of_a_deal_stores_the_plain_encoding_of_its_whole_log():
    serial._encoded_logs.clear()
    states = _random_states(3)
    for state in states:
        assert serial.to_json(state)["log"] == _plain(state.log)
    assert serial.from_json(serial.to_json(states[-1])).log == states[-1].log


def test_branches_from_one_state_and_shortened_logs_each_get_their_own_encoding():
    serial._encoded_logs.clear()
    states = _random_states(4)
    middle = states[len(states) // 2]
    serial.to_json(middle)
    seat = engine.to_act(middle)[0]
    for action in engine.legal_actions(middle, seat)[:4]:  # siblings share every entry but the last
        branch = engine.apply_action(middle, seat, action)[0]
        assert serial.to_json(branch)["log"] == _plain(branch.log)
    later = states[-1]
    serial.to_json(later)
    for cut in (len(later.log) - 1, len(later.log) // 2, 1, 0):
        shortened = later.log[:cut]
        assert serial._encode_log(shortened) == _plain(shortened)


def test_a_log_decoded_anew_is_encoded_right_though_its_entries_are_other_objects():
    serial._encoded_logs.clear()
    states = _random_states(5)
    serial.to_json(states[40])
    decoded = serial.from_json(serial.to_json(states[40]))
    # Its stored encoding is remembered: the next save encodes only what the move appends.
    assert serial._encoded_logs[id(decoded.log[-1])][0] is decoded.log
    seat = engine.to_act(decoded)[0]
    after = engine.apply_action(decoded, seat, engine.legal_actions(decoded, seat)[0])[0]
    assert serial.to_json(after)["log"] == _plain(after.log)


def test_changing_a_returned_encoding_does_not_change_the_next_one():
    serial._encoded_logs.clear()
    states = _random_states(6)
    first = serial.to_json(states[20])["log"]
    first.append(["tampered"])
    first[0] = None
    assert serial.to_json(states[21])["log"] == _plain(states[21].log)


def test_the_memory_of_encoded_logs_stays_bounded():
    serial._encoded_logs.clear()
    for seed in range(3):
        for state in _random_states(seed)[::3]:
            serial.to_json(state)
            assert len(serial._encoded_logs) <= serial._ENCODED_LOGS_MAX


def test_a_decoded_log_shares_equal_actions_and_round_trips():
    states = _random_states(7)
    stored = serial.to_json(states[-1])
    first, second = serial.from_json(stored), serial.from_json(stored)
    assert first.log == states[-1].log == second.log
    # The same stored action decodes to one shared (immutable) object.
    assert all(a is b for (_, a), (_, b) in zip(first.log, second.log, strict=True))


def test_presets_are_built_once_per_name_and_options_and_bad_options_still_refused():
    # docs/rules.md §6 options: the same preset and options give the one (frozen) rule set.
    assert engine.preset("lianzhong_simple", qiangdu=True, roasting=False) is engine.preset(
        "lianzhong_simple", roasting=False, qiangdu=True
    )
    assert engine.preset("lianzhong_simple", qiangdu=True) != engine.preset("lianzhong_simple", qiangdu=False)
    for bad in ({"qiangdu": [True]}, {"qiangdu": "yes"}, {"colour": 1}):
        try:
            engine.preset("lianzhong_simple", **bad)
        except ValueError:
            continue
        raise AssertionError(f"{bad} accepted")
