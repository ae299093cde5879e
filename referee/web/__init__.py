"""The live dashboard and review pages, served locally from the table (issue 6).

`serve(feed, ...)` returns a `WebServer`; `.start()` runs it on a background
thread (InsecureBind: beyond localhost without an operator PIN). Only this
package imports the web framework (Starlette + uvicorn).
"""
from __future__ import annotations

from .server import InsecureBind, WebServer, serve

__all__ = ["InsecureBind", "WebServer", "serve"]
