"""A standalone HTML page around an SVG: no network, no libraries, a few lines of plain JS.

The SVG is inlined; dragging pans and the mouse wheel zooms by changing the SVG's ``viewBox``.
"0" resets the view. Once the script has run it writes the number of graph nodes it found
(``g.node`` elements whose id starts with ``gnode``; the legend's are not counted) into
``<body data-nodes=...>`` and the page's status line, so a headless browser's DOM dump shows
the page really loaded.
"""

import html as _html
import re

_SCRIPT = r"""
(function () {
  var svg = document.querySelector('#graph svg');
  var nodes = svg.querySelectorAll('g.node[id^="gnode"]').length;
  document.body.setAttribute('data-nodes', String(nodes));
  document.getElementById('status').textContent = nodes + ' nodes';
  var vb = svg.viewBox.baseVal;
  var home = [vb.x, vb.y, vb.width, vb.height];
  svg.removeAttribute('width'); svg.removeAttribute('height');
  function set(b) { svg.setAttribute('viewBox', b.join(' ')); }
  function cur() { var v = svg.viewBox.baseVal; return [v.x, v.y, v.width, v.height]; }
  svg.addEventListener('wheel', function (e) {
    e.preventDefault();
    var b = cur(), r = svg.getBoundingClientRect();
    var k = e.deltaY > 0 ? 1.15 : 1 / 1.15;
    var px = b[0] + (e.clientX - r.left) / r.width * b[2];
    var py = b[1] + (e.clientY - r.top) / r.height * b[3];
    set([px - (px - b[0]) * k, py - (py - b[1]) * k, b[2] * k, b[3] * k]);
  }, {passive: false});
  var drag = null;
  svg.addEventListener('mousedown', function (e) { drag = [e.clientX, e.clientY, cur()]; });
  window.addEventListener('mouseup', function () { drag = null; });
  window.addEventListener('mousemove', function (e) {
    if (!drag) return;
    var r = svg.getBoundingClientRect(), b = drag[2];
    set([b[0] - (e.clientX - drag[0]) / r.width * b[2],
         b[1] - (e.clientY - drag[1]) / r.height * b[3], b[2], b[3]]);
  });
  window.addEventListener('keydown', function (e) { if (e.key === '0') set(home); });
})();
"""

_STYLE = """
html, body { margin: 0; height: 100%; font-family: monospace; background: #fff; }
header { padding: 4px 8px; border-bottom: 1px solid #ccc; font-size: 12px; }
#graph { width: 100%; height: calc(100% - 26px); }
#graph svg { width: 100%; height: 100%; cursor: grab; }
"""


def strip_prologue(svg: str) -> str:
    """The ``<svg>...</svg>`` element alone (no XML declaration, DOCTYPE or comments before it)."""
    start = svg.find("<svg")
    return svg[start:] if start >= 0 else svg


def html_page(svg: str, title: str = "dyngrad graph", node_count=None) -> str:
    """A complete HTML page showing `svg`, pannable and zoomable, that needs no network."""
    body = strip_prologue(svg)
    body = re.sub(r"<!--.*?-->", "", body, flags=re.S)
    count = "" if node_count is None else f" &middot; {node_count} graph nodes"
    return (
        "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n"
        f"<title>{_html.escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
        f"<header>{_html.escape(title)}{count} &middot; wheel: zoom, drag: pan, 0: reset "
        "&middot; <span id=\"status\">loading</span></header>\n"
        f"<div id=\"graph\">\n{body}\n</div>\n<script>{_SCRIPT}</script>\n</body>\n</html>\n")
