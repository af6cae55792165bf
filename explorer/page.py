"""The explorer's HTML pages: the local server's page and the self-contained file.

Both load the one front-end module (``static/explorer.js``, package data) and differ
only in the transport of its requests: the server page posts them to ``/api``; the
self-contained page answers them from replies computed beforehand and inlines the
module, its style sheet and the data, so it works offline from ``file://``.
"""

from __future__ import annotations

import json
import re
from importlib import resources

__all__ = ["ASSETS", "asset", "server_page", "standalone_page"]

ASSETS = {"explorer.js": "text/javascript", "explorer.css": "text/css"}
"""The files the pages use, with their content types (all shipped in ``static/``)."""


def asset(name: str) -> str:
    """Return the text of the shipped asset ``name`` (one of :data:`ASSETS`)."""
    if name not in ASSETS:
        raise KeyError(f"asset {name!r} is not one of {sorted(ASSETS)}")
    return resources.files("attnio.explorer").joinpath("static", name).read_text("utf-8")


def _json_script(element_id: str, value: object) -> str:
    text = json.dumps(value, separators=(",", ":")).replace("<", "\\u003c")
    return f'<script type="application/json" id="{element_id}">{text}</script>'


_HEAD = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>attnio explore: {title}</title>
<link rel="icon" href="data:,">
{style}
</head>
<body style="margin: 12px 16px">
<div id="attnio-explorer"></div>
"""

_BOOT = """
const data = JSON.parse(document.getElementById("attnio-data").textContent);
const el = document.getElementById("attnio-explorer");
render({{ model: hostModel(data, {transport}), el }});
el.querySelector(".attnio-explorer").focus();
window.attnioExplorer = {{ Game, replayMoves, parseMoves, requestKey, RULES, niceStep }};
"""


def server_page(data: dict[str, object]) -> str:
    """Return the local server's page: it loads ``/static/explorer.js`` and posts to ``/api``."""
    head = _HEAD.format(
        title=_escape(str(data["title"])),
        style='<link rel="stylesheet" href="/static/explorer.css">',
    )
    boot = _BOOT.format(transport='serverTransport("/api")')
    return (
        head
        + _json_script("attnio-data", {**data, "host": "server"})
        + '\n<script type="module">\n'
        + "import { render, hostModel, serverTransport, Game, replayMoves, parseMoves, "
        + 'requestKey, RULES, niceStep } from "/static/explorer.js";'
        + boot
        + "</script>\n</body>\n</html>\n"
    )


def standalone_page(data: dict[str, object], replies: dict[str, object]) -> str:
    """Return one self-contained page: module, style, data and precomputed replies inlined."""
    head = _HEAD.format(
        title=_escape(str(data["title"])),
        style="<style>\n" + asset("explorer.css") + "\n</style>",
    )
    module = re.sub(r"^export default .*$", "", asset("explorer.js"), flags=re.MULTILINE)
    module = re.sub(r"^export ", "", module, flags=re.MULTILINE)
    if "</script" in module.lower():  # pragma: no cover - the shipped module never has it
        raise ValueError("explorer.js must not contain '</script'")
    boot = _BOOT.format(
        transport='staticTransport(JSON.parse(document.getElementById("attnio-replies").textContent))'
    )
    return (
        head
        + _json_script("attnio-data", {**data, "host": "file"})
        + "\n"
        + _json_script("attnio-replies", replies)
        + '\n<script type="module">\n'
        + module
        + boot
        + "</script>\n</body>\n</html>\n"
    )


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
