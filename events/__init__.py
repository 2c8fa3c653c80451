"""The event server: the waiting reads of the API, on an asynchronous server of their own.

A client follows its deal's log (`GET games/{id}/events`), its table's (`GET tables/{id}/events`),
its feed (`GET me/events`) and a quick-match ticket (`GET matchmaking/tickets/{id}?wait=`), by
long-poll or, for the deal's log and the feed, as Server-Sent Events. Each of those requests may
wait up to 30 s (a stream for minutes); on the web role's threads a waiting client would hold a
thread for all that time. Here a wait costs an entry in an event loop. This is the design Zulip uses
(Django for the API, a separate event server for long-polls), and docs/architecture.md "Processes"
describes how the reverse proxy routes these paths here.

What is shared with the API, so that an answer is the same whichever role gives it:
the token lookup and the permission checks (accounts/authentication.py, accounts/permissions.py),
the parameters' serializers, the selectors that read and redact each log, the error bodies
(infra/api/handler.py `error_parts`) and the JSON rendering (infra/api/renderers.py). What is the
event server's own: the HTTP layer (Starlette), waiting for wake-ups (events/subscriptions.py),
following a stream (events/streams.py), and ending both when the process is told to stop
(events/shutdown.py).
"""
