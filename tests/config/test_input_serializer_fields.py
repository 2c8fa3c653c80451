"""Input serializers copy their declared fields cheaply (config/api/serializers.py `_field_copy`):
each instance still validates on its own fields, bound to itself, with its own errors."""

import threading

from rest_framework import serializers

from config.api.serializers import StrictInputSerializer
from games.apis import GameActionInputSerializer


class _Nested(serializers.Serializer):
    seat = serializers.IntegerField(min_value=0, max_value=4)


class _WithNested(StrictInputSerializer):
    seats = _Nested(many=True)
    name = serializers.CharField(max_length=3)


def test_each_instance_has_its_own_fields_bound_to_it():
    first, second = GameActionInputSerializer(data={}), GameActionInputSerializer(data={})
    for name in ("type", "cards", "card", "expected_version"):
        assert first.fields[name] is not second.fields[name]
        assert first.fields[name].parent is first
        assert second.fields[name].parent is second
        assert first.fields[name] is not GameActionInputSerializer._declared_fields[name]
    assert GameActionInputSerializer._declared_fields["type"].parent is None


def test_validation_results_and_errors_stay_with_their_instance():
    good = GameActionInputSerializer(data={"type": "play", "cards": ["9D", "SJ"], "expected_version": 3})
    bad = GameActionInputSerializer(data={"type": "fold", "cards": ["9D", "TOOLONG"], "expected_version": -1})
    assert not bad.is_valid()
    assert good.is_valid(), good.errors
    assert good.validated_data == {"type": "play", "cards": ["9D", "SJ"], "expected_version": 3}
    assert set(bad.errors) == {"type", "cards", "expected_version"}
    assert list(bad.errors["cards"]) == [1]  # the second card only: the list's child keeps no state


def test_nested_serializers_are_deep_copied_so_their_fields_reach_this_root():
    one, other = _WithNested(data={}), _WithNested(data={})
    assert one.fields["seats"] is not other.fields["seats"]
    assert one.fields["seats"].child.fields["seat"].root is one
    assert not _WithNested(data={"seats": [{"seat": 9}], "name": "abcd"}).is_valid()
    checked = _WithNested(data={"seats": [{"seat": 2}], "name": "abc"})
    assert checked.is_valid(), checked.errors
    assert checked.validated_data == {"seats": [{"seat": 2}], "name": "abc"}


def test_many_threads_validating_at_once_each_get_their_own_answer():
    outcomes: list[tuple[int, int, object]] = []  # (thread, the version it sent, what it got back)
    lock = threading.Lock()

    def validate(index: int) -> None:
        for round_ in range(200):
            version = index * 1000 + round_ if index % 2 == 0 else -round_ - 1
            serializer = GameActionInputSerializer(data={"type": "pass", "expected_version": version})
            got = serializer.validated_data["expected_version"] if serializer.is_valid() else None
            with lock:
                outcomes.append((index, version, got))

    threads = [threading.Thread(target=validate, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(outcomes) == 1600
    assert all(got == (version if index % 2 == 0 else None) for index, version, got in outcomes)
