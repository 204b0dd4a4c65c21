"""Log set-up: plain lines by default, one JSON object per line with ``LOG_FORMAT=json``.

The service logs one line per applied input (`durak.actions`) with its fields in ``extra={"fields": ...}``:
platform, chat, game, version, action, ms. The plain format shows them as ``key=value``; the JSON format
as keys of the object, ready for a log pipeline (Loki, CloudWatch, Elastic) to filter on.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

PLAIN = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "ts": round(record.created, 3),
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        data.update(getattr(record, "fields", None) or {})
        if record.exc_info:
            data["exc"] = self.formatException(record.exc_info)
        return json.dumps(data, ensure_ascii=False, default=str)


class PlainFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        fields = getattr(record, "fields", None)
        if fields:
            text += " " + " ".join(f"{key}={value}" for key, value in fields.items())
        return text


def configure(level: str | int, fmt: str = "plain") -> None:
    """Root logging for the bot: ``fmt`` "json" or "plain" (anything else counts as plain)."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter() if fmt.strip().lower() == "json" else PlainFormatter(PLAIN))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # httpx logs every request's URL at INFO, and a Bot API URL holds the bot's token: never log it
    logging.getLogger("httpx").setLevel(max(logging.WARNING, root.level))
