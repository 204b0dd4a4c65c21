"""Metrics in tests: the `prometheus` fixture is a fresh `PrometheusMetrics` for one test, to hand to what
counts (the service, the AI pool, the webhook), and `scrape` reads ``/metrics``."""

from __future__ import annotations

from collections.abc import Iterator

import aiohttp
import pytest

from bot.runtime import metrics


@pytest.fixture
def prometheus() -> Iterator[metrics.PrometheusMetrics]:
    pytest.importorskip("prometheus_client")
    yield metrics.PrometheusMetrics()


Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


async def scrape(url: str) -> tuple[int, Samples]:
    """GET a metrics page: its status and every sample, keyed by (name, labels)."""
    from prometheus_client.parser import text_string_to_metric_families

    async with (
        aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=5)) as session,
        session.get(url) as response,
    ):
        status, text = response.status, await response.text()
    if status != 200:
        return status, {}
    samples = {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }
    return status, samples


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)
