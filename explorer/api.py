"""The explorer's requests: one validating dispatcher shared by the server and the widget.

A request is a JSON object ``{"kind": ..., ...}``:

- ``{"kind": "solve", "M": int, "variant": str, "method": str}``: a pebbling with its moves;
- ``{"kind": "bounds", "M": int}``: the catalog's records evaluated at this M;
- ``{"kind": "curve", "variant": str, "low": int, "high": int}``: IO(M) over a range;
- ``{"kind": "moves"}``: the move file given on the command line, if any.

Every reply carries ``"schema"`` (:data:`attnio.bounds.schema.JSON_SCHEMA_VERSION`),
like every JSON attnio writes. Every field is checked (type, range, no unknown keys) before anything is computed;
a bad request raises :class:`~attnio.explorer.errors.RequestError` naming the field.
Nothing in a request names a file: the page reaches only what the command was given.
"""

from __future__ import annotations

import json

from attnio.bounds.schema import JSON_SCHEMA_VERSION
from attnio.pebble import VARIANTS

from .errors import RequestError
from .instance import Instance

__all__ = ["MAX_REQUEST_BYTES", "REQUESTS", "answer", "request_key"]

MAX_REQUEST_BYTES = 4096
"""Largest request body the server reads."""

REQUESTS: dict[str, dict[str, type]] = {
    "solve": {"M": int, "variant": str, "method": str},
    "bounds": {"M": int},
    "curve": {"variant": str, "low": int, "high": int},
    "moves": {},
}
"""Each request kind and its fields (all required)."""


def request_key(request: dict[str, object]) -> str:
    """The canonical text of a request: the key under which a static page stores its reply.

    Examples
    --------
    >>> request_key({"M": 4, "kind": "bounds"})
    '{"M":4,"kind":"bounds"}'
    """
    return json.dumps(request, sort_keys=True, separators=(",", ":"))


def validate(request: object) -> dict[str, object]:
    """Return ``request`` if it is a well-formed request, else raise :class:`RequestError`."""
    if not isinstance(request, dict):
        raise RequestError(f"a request must be a JSON object, got {type(request).__name__}")
    kind = request.get("kind")
    if kind not in REQUESTS:
        raise RequestError(f"request kind={kind!r} must be one of {sorted(REQUESTS)}")
    fields = REQUESTS[kind]  # type: ignore[index]
    given = set(request) - {"kind"}
    if given != set(fields):
        raise RequestError(
            f"request {kind!r} takes exactly the fields {sorted(fields)}, got {sorted(given)}"
        )
    for name, expected in fields.items():
        value = request[name]
        if isinstance(value, bool) or not isinstance(value, expected):
            raise RequestError(f"{kind}: {name}={value!r} must be of type {expected.__name__}")
    if "variant" in fields and request["variant"] not in VARIANTS:
        raise RequestError(f"{kind}: variant={request['variant']!r} must be one of {VARIANTS}")
    return request


def answer(instance: Instance, request: object) -> dict[str, object]:
    """Validate ``request`` and return the reply (JSON-ready, with ``"schema"``), computed
    by ``instance``.

    Examples
    --------
    >>> inst = Instance.from_builder("attention-forward", 1, 1)
    >>> answer(inst, {"kind": "solve", "M": 3, "variant": "standard", "method": "belady"})["io"]
    4
    """
    req = validate(request)
    kind = req["kind"]
    if kind == "solve":
        reply = instance.solve(req["M"], req["variant"], req["method"])  # type: ignore[arg-type]
    elif kind == "bounds":
        reply = instance.bounds(req["M"])  # type: ignore[arg-type]
    elif kind == "curve":
        reply = instance.curve(req["variant"], req["low"], req["high"])  # type: ignore[arg-type]
    else:
        reply = instance.given_moves()
    return {"schema": JSON_SCHEMA_VERSION, **reply}  # a new dict: the instance caches replies
