"""The site's one script and one stylesheet (docs/site.md), written as ``site.js`` and
``site.css``. Plain JavaScript, no library, nothing fetched: the pages work from
``file://``. The list page's rows carry ``data-*`` attributes; the script only reads
them and the cells' text (it never builds HTML from data, so a hostile name stays
text)."""

from __future__ import annotations

SITE_JS = """\
// arpad site: sort, search and filter the list table (docs/site.md).
(function () {
  "use strict";
  var table = document.getElementById("list");
  if (!table) { return; }
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var search = document.getElementById("search");
  var fed = document.getElementById("fed");
  var title = document.getElementById("title");
  var shown = document.getElementById("shown");

  function filter() {
    var q = search.value.trim().toLowerCase();
    var f = fed.value, t = title.value, n = 0;
    rows.forEach(function (r) {
      var ok = (!q || r.dataset.name.indexOf(q) >= 0 || r.dataset.id.indexOf(q) >= 0) &&
               (!f || r.dataset.fed === f) && (!t || r.dataset.title === t);
      r.hidden = !ok;
      if (ok) { n += 1; }
    });
    shown.textContent = String(n);
  }

  function key(row, col, numeric) {
    var v = row.cells[col].dataset.v;
    if (v === undefined) { v = row.cells[col].textContent; }
    if (numeric) { return v === "" ? null : parseFloat(v); }
    return v.toLowerCase();
  }

  function sortBy(th) {
    var col = th.cellIndex, numeric = th.dataset.type === "num";
    var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
    Array.prototype.forEach.call(th.parentNode.cells, function (c) {
      c.removeAttribute("aria-sort");
    });
    th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
    rows.sort(function (a, b) {
      var x = key(a, col, numeric), y = key(b, col, numeric);
      if (x === y) { return 0; }
      if (x === null) { return 1; }   // empty cells last either way
      if (y === null) { return -1; }
      return (x < y ? -1 : 1) * dir;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }

  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
    th.addEventListener("click", function () { sortBy(th); });
  });
  search.addEventListener("input", filter);
  fed.addEventListener("change", filter);
  title.addEventListener("change", filter);
  filter();
})();
"""

SITE_CSS = """\
body { font-family: sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { border-bottom: 1px solid #ddd; padding: 0.2em 0.6em; text-align: left; }
td.n, th.n { text-align: right; }
#list th { cursor: pointer; background: #f3f3f3; }
#list th[aria-sort=ascending]::after { content: " \\25B2"; }
#list th[aria-sort=descending]::after { content: " \\25BC"; }
.controls { margin: 0.5em 0; }
.controls label { margin-right: 1em; }
.note { color: #666; }
svg.chart { border: 1px solid #ddd; background: #fff; }
svg.chart .line { fill: none; stroke: #1f5fa8; stroke-width: 2; }
svg.chart .pub { fill: #c0392b; }
svg.chart .pt { fill: #1f5fa8; }
svg.chart text { font-size: 11px; fill: #444; }
svg.chart .grid { stroke: #eee; }
"""
