"""The embedded default's broker (infra/filesystem_broker.py): a message appears in the queue folder
only whole, so a polling worker can never read a half-written file (which stopped the worker)."""

import json
import os

import kombu

from infra.filesystem_broker import Transport, staging_folder


def _connection(tmp_path):
    queue = tmp_path / "queue"
    queue.mkdir()
    options = {"data_folder_in": str(queue), "data_folder_out": str(queue),
               "control_folder": str(tmp_path / "control"), "store_processed": False}
    return kombu.Connection("filesystem://", transport=Transport, transport_options=options), queue


def test_messages_are_staged_outside_the_queue_folder_and_arrive_whole(tmp_path):
    connection, queue = _connection(tmp_path)
    with connection:
        channel = connection.default_channel
        for number in range(20):
            channel._put("timers", {"body": "x" * 5000, "n": number})
    names = sorted(os.listdir(queue))
    assert len(names) == 20 and all(name.endswith(".timers.msg") for name in names)
    assert os.listdir(staging_folder(str(queue))) == []  # nothing left half-way
    # every file is a whole message (messages of one millisecond have no set order among themselves)
    assert sorted(json.loads((queue / name).read_text())["n"] for name in names) == list(range(20))


def test_a_published_task_round_trips_through_kombu(tmp_path):
    connection, _ = _connection(tmp_path)
    with connection:
        simple = connection.SimpleQueue("timers")
        simple.put({"game": 7, "version": 3})
        message = simple.get(timeout=2)
        assert message.payload == {"game": 7, "version": 3}
        message.ack()
        simple.close()


def test_the_embedded_default_uses_this_transport():
    from config.settings import base

    if base.CELERY_BROKER_URL.startswith("filesystem://"):
        assert base.CELERY_BROKER_TRANSPORT == "infra.filesystem_broker:Transport"
