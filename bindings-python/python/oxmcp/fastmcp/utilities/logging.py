"""FastMCP's ``fastmcp.utilities.logging``: loggers named as FastMCP names them."""

from __future__ import annotations

import logging


def get_logger(name: str) -> logging.Logger:
    """The logger ``fastmcp.<name>`` (``name`` itself when it starts so), as a module of a
    FastMCP server names its own (``logger = get_logger(__name__)``)."""
    return logging.getLogger(name if name.startswith("fastmcp.") else f"fastmcp.{name}")


__all__ = ["get_logger"]
