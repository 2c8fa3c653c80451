"""kombu's filesystem transport with atomic writes, for the embedded default (`scripts/start`).

kombu writes a message file in place (create, lock, write), and a worker polling the folder may read
it before its bytes are there: the empty read raises a JSON error that stops the worker (seen with
the web process publishing timers while the worker polled). Here every message is written to a
staging folder beside the queue folder and renamed into it, which is atomic on one filesystem, so a
reader only ever finds whole messages. Production uses Redis and never loads this module.
"""

import os
import uuid
from time import monotonic

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


def staging_folder(queue_folder: str) -> str:
    return os.path.join(os.path.dirname(os.path.abspath(queue_folder)), "staging")


class Channel(filesystem.Channel):
    def _put(self, queue, payload, **kwargs):
        """Put `payload` onto `queue`: write aside, then rename into the queue folder."""
        # The same name pattern as kombu's, which its reader sorts and filters on.
        name = f"{int(round(monotonic() * 1000))}_{uuid.uuid4()}.{queue}.msg"
        staging = staging_folder(self.data_folder_out)
        try:
            os.makedirs(staging, exist_ok=True)
            staged = os.path.join(staging, name)
            with open(staged, "wb") as handle:
                handle.write(str_to_bytes(dumps(payload)))
            os.replace(staged, os.path.join(self.data_folder_out, name))
        except OSError as exc:
            raise ChannelError(f"Cannot add message {name!r} to the queue folder") from exc


class Transport(filesystem.Transport):
    Channel = Channel
