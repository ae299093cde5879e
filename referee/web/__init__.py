"""The live dashboard and review pages, served locally from the table (issue 6).

`serve(feed, ...)` returns a `WebServer`; `.start()` runs it on a background
thread. Only this package imports the web framework (Starlette + uvicorn).
"""
from __future__ import annotations

from .server import WebServer, serve

__all__ = ["WebServer", "serve"]
