"""How an operation's parameters are written into its request, by their OpenAPI ``style``
and ``explode``, as FastMCP writes them: the query in the ``form`` style unless told
otherwise (``spaceDelimited``, ``pipeDelimited``, ``deepObject``), path and header values in
the ``simple`` style, scalars as JSON spells them (``true``, not ``True``). A path value
that would make a dot segment (``..``), however many times it is percent-encoded, is
refused: it would reach another resource of the API."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import quote, unquote

from ....utilities.openapi import Argument

#: What joins a list's items (or an object's keys and values) when it is not exploded.
_DELIMITERS = {"form": ",", "spaceDelimited": " ", "pipeDelimited": "|"}
#: How many layers of percent-encoding of a path value are looked through for a dot segment.
_MAX_PATH_DECODINGS = 32


def scalar(value: Any) -> str:
    """A scalar's text in a request: booleans as JSON has them, the rest as ``str`` makes them."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def query(arguments: list[tuple[Argument, Any]]) -> dict[str, Any]:
    """The query parameters of ``arguments`` (each parameter and its value), for the HTTP
    client's ``params``: a list value repeats its name unless the parameter is not exploded
    (then one value, its items joined by the style's delimiter; ``spaceDelimited`` and
    ``pipeDelimited`` lists are not exploded unless told so); an exploded object's
    properties are parameters of their own (``name[key]`` for ``deepObject``)."""
    written: dict[str, Any] = {}

    def add(name: str, value: Any) -> None:
        # An exploded object's properties may share a name with another parameter: keep both.
        if name not in written:
            written[name] = value
            return
        written[name] = [*listed(written[name]), *listed(value)]

    for argument, value in arguments:
        name, style = argument.openapi_name, argument.style or "form"
        explode = argument.explode
        if explode is None:
            explode = not (isinstance(value, list) and style in ("spaceDelimited", "pipeDelimited"))
        delimiter = _DELIMITERS.get(style, ",")
        if isinstance(value, dict):
            if not explode:
                if value:
                    add(name, delimiter.join(scalar(part) for pair in value.items() for part in pair))
                continue
            for key, item in value.items():
                add(f"{name}[{scalar(key)}]" if argument.style == "deepObject" else scalar(key), scalar(item))
        elif isinstance(value, list) and not explode:
            if value:
                add(name, delimiter.join(scalar(item) for item in value))
        else:
            add(name, value)
    return written


def simple(value: Any, explode: bool | None) -> str:
    """A header value in the ``simple`` style: a list's items joined by commas (a nested
    list's too), an object's keys and values (``key=value`` pairs when exploded)."""
    return _simple(value, bool(explode), scalar)


def path_segment(name: str, value: Any, explode: bool | None) -> str:
    """The path value of parameter ``name`` in the ``simple`` style, each item
    percent-encoded (dots too) and the style's separators left as they are; ``ValueError``
    for an item that makes a dot segment."""
    return _simple(value, bool(explode), lambda item: _path_item(name, item))


def _simple(value: Any, explode: bool, item: Callable[[Any], str]) -> str:
    if isinstance(value, dict):
        return ",".join(
            f"{item(key)}={item(part)}" if explode else f"{item(key)},{item(part)}" for key, part in value.items()
        )
    if isinstance(value, list | tuple):
        # Items of a nested list are items too (the style defines primitive items only).
        return ",".join(item(part) for entry in value for part in listed(entry))
    return item(value)


def listed(value: Any) -> list[Any]:
    """A list or tuple's items, or the value alone."""
    return list(value) if isinstance(value, list | tuple) else [value]


def _path_item(name: str, value: Any) -> str:
    text = scalar(value)
    decoded = text
    for _ in range(_MAX_PATH_DECODINGS):
        if any(part in (".", "..") for part in decoded.replace("\\", "/").split("/")):
            raise ValueError(f"Path parameter '{name}' cannot contain dot segments")
        expanded = unquote(decoded)
        if expanded == decoded:
            break
        decoded = expanded
    else:
        raise ValueError(f"Path parameter '{name}' has too many encoding layers")
    # `quote` leaves dots as they are: encoded, no server can make a dot segment of them.
    return quote(text, safe="").replace(".", "%2E")
