"""Gauges read from the database at scrape time: tables by status, waiting tickets and their wait.

They are facts the database already holds, so they are read when Prometheus asks rather than counted
by every process. Only the web's /metrics registers this collector. `matchmaking.Ticket` may not exist
(matchmaking queues came later): without it, or without the fields read here, the ticket gauges are
simply left out. A database error leaves out every gauge of this collector; the scrape still answers.
"""

import logging

from django.apps import apps
from django.core.exceptions import FieldError
from django.db import DatabaseError
from django.db.models import Count, Min
from django.utils import timezone
from prometheus_client.core import GaugeMetricFamily

logger = logging.getLogger(__name__)

TICKET_WAITING = "waiting"


class DatabaseCollector:
    def describe(self):
        # Nothing at registration time: describing must not query the database.
        return []

    def collect(self):
        try:
            families = [self._tables(), self._games()]
            families += self._tickets()
        except DatabaseError:
            logger.warning("database gauges not collected", exc_info=True)
            return
        yield from families

    # The models come from Django's app registry: this package sits below the apps and imports none.

    def _tables(self) -> GaugeMetricFamily:
        table = apps.get_model("matchmaking", "Table")
        family = GaugeMetricFamily("baohuang_tables", "Tables by status.", labels=["status"])
        counts = dict(table.objects.values_list("status").annotate(n=Count("id")).order_by())
        for status, _label in table._meta.get_field("status").choices:
            family.add_metric([status], counts.get(status, 0))
        return family

    def _games(self) -> GaugeMetricFamily:
        game = apps.get_model("games", "Game")
        family = GaugeMetricFamily(
            "baohuang_deals_running", "Deals being played, by preset.", labels=["preset"]
        )
        rows = game.objects.filter(status="running").values_list("preset").annotate(n=Count("id"))
        for preset, count in rows.order_by("preset"):
            family.add_metric([preset], count)
        return family

    def _tickets(self) -> list[GaugeMetricFamily]:
        try:
            ticket = apps.get_model("matchmaking", "Ticket")
        except LookupError:
            return []
        try:
            rows = list(
                ticket.objects.filter(status=TICKET_WAITING)
                .values_list("preset")
                .annotate(n=Count("id"), oldest=Min("created_at"))
                .order_by("preset")
            )
        except FieldError:
            logger.warning("matchmaking.Ticket lacks status/preset/created_at; ticket gauges left out")
            return []
        waiting = GaugeMetricFamily(
            "baohuang_tickets_waiting", "Matchmaking tickets waiting, by preset.", labels=["preset"]
        )
        oldest = GaugeMetricFamily(
            "baohuang_ticket_oldest_wait_seconds",
            "How long the oldest waiting ticket has waited, by preset.",
            labels=["preset"],
        )
        now = timezone.now()
        for preset, count, created_at in rows:
            waiting.add_metric([preset], count)
            oldest.add_metric([preset], max(0.0, (now - created_at).total_seconds()))
        return [waiting, oldest]
