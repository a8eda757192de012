"""The replay page: one self-contained HTML file (styles, script and data inline; no network).

The data of :mod:`skirmish.projections.page.data` goes in as JSON inside a
``<script type="application/json">`` element, with ``<``, ``>``, ``&`` and the two JavaScript
line separators escaped, so no text of the log (a name, a note) can close the element or
start markup; the page's script sets every text of the log with ``textContent``.
"""

from __future__ import annotations

from html import escape
from importlib.resources import files
from typing import Any

import msgspec

_ESCAPES = ((b"<", b"\\u003c"), (b">", b"\\u003e"), (b"&", b"\\u0026"),
            ("\u2028".encode(), b"\\u2028"), ("\u2029".encode(), b"\\u2029"))


def json_for_script(data: Any) -> bytes:
    """JSON that is safe inside a script element (and still the same JSON)."""
    raw = msgspec.json.encode(data)
    for old, new in _ESCAPES:
        raw = raw.replace(old, new)
    return raw


def _asset(name: str) -> str:
    return files("skirmish.projections.page").joinpath(name).read_text(encoding="utf-8")


def script() -> str:
    """The page's module script: fold.mjs (the fold and the words, which Node tests too), then
    page.js, which calls them: one inline script, as the page is one file that opens from disk
    (a module file beside it would be a fetch, which a page opened from disk may not make)."""
    return _asset("fold.mjs") + "\n" + _asset("page.js")


BODY = """<header>
<h1 id="title"></h1>
<p class="sub" id="ruleset"></p>
<p class="sub secret" id="secret"></p>
<p class="sub" id="summarised" hidden></p>
<p class="sub live" id="live" aria-live="polite"></p>
</header>
<main>
<section aria-label="Replay controls">
<div class="controls">
<span id="branch-pick"><label for="branch">Branch</label> <select id="branch"></select></span>
<label for="speed">Speed</label> <select id="speed"><option value="1000">slow</option><option value="400" selected>normal</option><option value="100">fast</option><option value="10">fastest</option></select>
</div>
<div class="scrub">
<label for="scrub" class="muted">Event <span id="position" aria-live="polite"></span></label>
<input type="range" id="scrub" min="0" max="0" value="0" step="1">
<div class="forks" id="forks" aria-hidden="true"></div>
</div>
<div class="controls">
<button type="button" id="first" aria-label="First event" title="First event (Home)">« First</button>
<button type="button" id="back" aria-label="Step back" title="Step back (Left arrow or j)">◀ Back</button>
<button type="button" id="play" aria-pressed="false" title="Play or pause (Space)">▶ Play</button>
<button type="button" id="forward" aria-label="Step forward" title="Step forward (Right arrow or l)">Next ▶</button>
<button type="button" id="last" aria-label="Last event" title="Last event (End)">Last »</button>
</div>
</section>
<section aria-label="The event">
<p class="narration" id="narration" aria-live="polite"></p>
<button type="button" id="explain" aria-expanded="false" aria-controls="explanation">Explain</button>
<pre class="explanation" id="explanation" hidden></pre>
<div id="notes"></div>
</section>
<div class="layout">
<section aria-labelledby="board-title">
<h2 id="board-title">Board</h2>
<p><span class="clock" id="clock"></span> <span class="muted" id="acts"></span></p>
<ul class="board" id="board"></ul>
<h2>Pending actions</h2>
<ul class="pending" id="pending"></ul>
</section>
<section aria-labelledby="summary-title">
<h2 id="summary-title">Damage so far <span class="muted" id="unit"></span></h2>
<table><thead><tr><th scope="col">who</th><th scope="col">side</th><th scope="col">vital</th><th scope="col" class="num">dealt</th><th scope="col" class="num">taken</th></tr></thead><tbody id="summary"></tbody></table>
<div id="branches"><h2>Branches</h2>
<ul id="splits"></ul></div>
</section>
</div>
<section aria-labelledby="chart-head">
<h2 id="chart-head">Vital figure over the fight</h2>
<div class="chart" id="chart"></div>
<ul class="legend" id="legend"></ul>
</section>
</main>
"""


def html(data: dict[str, Any]) -> bytes:
    """The page for the data of :func:`skirmish.projections.page.data.build` (``data["live"]``: the address of the
    server-sent events a served page follows)."""
    return page(json_for_script(data), str(data["encounter"]))


def page(payload: bytes, encounter: str) -> bytes:
    """The page around data already made safe by :func:`json_for_script`."""
    title = f"{encounter}: replay"
    head = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">'
        f"<title>{escape(title)}</title><style>{_asset('page.css')}</style></head><body>\n"
    )
    return b"".join([
        (head + BODY).encode(),
        b'<script type="application/json" id="replay-data">', payload, b"</script>\n",
        f"<script type=\"module\">\n{script()}</script>\n</body></html>\n".encode(),
    ])
