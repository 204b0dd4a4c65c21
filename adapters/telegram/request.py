"""PTB's HTTP transport, counting every Bot API call in the Prometheus metrics (``METRICS=on``).

Every call goes through `HTTPXRequest.do_request(url, ...)`; the Bot API method is the URL's last segment.
The status is the HTTP status Telegram answered (429 also counts in `durak_platform_api_429`), or "error"
when no answer came (timeout, connection refused). With metrics off the count is a no-op call.
"""

from __future__ import annotations

from typing import Any

from telegram.request import HTTPXRequest, RequestData

from bot.adapter import TELEGRAM as PLATFORM
from bot.adapter import Metrics


def api_method(url: str) -> str:
    """``https://api.telegram.org/bot<token>/sendMessage`` -> ``sendMessage``; file downloads -> ``file``
    (their last segment is a file name, which would make a label per file)."""
    if "/file/bot" in url:
        return "file"
    return url.rstrip("/").rpartition("/")[2] or "unknown"


class CountingRequest(HTTPXRequest):
    """`HTTPXRequest` that reports each call's method and status to ``metrics``."""

    def __init__(self, metrics: Metrics, **options: Any) -> None:
        super().__init__(**options)
        self.metrics = metrics

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        *args: Any,
        **kwargs: Any,
    ) -> tuple[int, bytes]:
        name = api_method(url)
        try:
            code, payload = await super().do_request(url, method, request_data, *args, **kwargs)
        except Exception:
            self.metrics.api_call(PLATFORM, name, "error")
            raise
        self.metrics.api_call(PLATFORM, name, code)
        return code, payload
