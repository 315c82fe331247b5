"""Looks at an HTML report as a reader's browser does: headless Chromium (Debian's
``chromium``), offline, for python/tests/test_report_rendering.py and docs/images/make.py.

* :func:`chromium`: the browser's path, or None.
* :func:`measure`: lays a page out at a window width and returns what its layout came to
  (the document's width, each table's and image's right edge, each image's size), read
  back from the DOM that ``--dump-dom`` prints after a probe script has written it there.
* :func:`screenshot`: a PNG of the page's first ``height`` pixels at that width.
"""

import html
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

__all__ = ["chromium", "measure", "screenshot"]

_NAMES = ("chromium", "chromium-browser", "chrome-headless-shell", "google-chrome")

# Writes the layout into the page as JSON once everything (images included) is loaded.
_PROBE = """<script>
window.addEventListener("load", function () {
  var root = document.documentElement;
  var right = function (e) { return e.getBoundingClientRect().right; };
  var out = {scrollWidth: root.scrollWidth, clientWidth: root.clientWidth,
             scrollHeight: root.scrollHeight,
             tables: Array.from(document.querySelectorAll("table")).map(right),
             images: Array.from(document.images).map(function (i) {
               return {alt: i.alt, naturalWidth: i.naturalWidth, naturalHeight: i.naturalHeight,
                       width: i.getBoundingClientRect().width, right: right(i)}; })};
  var pre = document.createElement("pre");
  pre.id = "nvmesim-probe";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


def chromium():
    """The path of a headless-capable Chromium, or None ($NVMESIM_CHROMIUM wins)."""
    named = os.environ.get("NVMESIM_CHROMIUM")
    if named:
        return named if shutil.which(named) else None
    for name in _NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


def _run(browser, args, timeout):
    with tempfile.TemporaryDirectory(prefix="nvmesim-chromium-") as profile:
        cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               "--no-first-run", "--disable-extensions", "--mute-audio",
               f"--user-data-dir={profile}", *args]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              env=dict(os.environ, HOME=profile))
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {done.returncode}: {done.stderr[-2000:]}")
    return done.stdout


def measure(page, width=1280, height=2000, browser=None, timeout=120):
    """Lays ``page`` (an HTML file) out in a ``width`` x ``height`` window and returns
    its layout as a dict: scrollWidth, clientWidth, scrollHeight, tables (right edges),
    images (alt, natural and drawn size, right edge). The page is copied with a probe
    script added; the file itself is not changed."""
    browser = browser or chromium()
    text = Path(page).read_text(encoding="utf-8")
    probed = text.replace("</body>", _PROBE + "</body>") if "</body>" in text else text + _PROBE
    with tempfile.TemporaryDirectory(prefix="nvmesim-probe-") as d:
        copy = Path(d) / Path(page).name
        copy.write_text(probed, encoding="utf-8")
        dom = _run(browser, [f"--window-size={width},{height}", "--virtual-time-budget=10000",
                             "--dump-dom", copy.as_uri()], timeout)
    found = re.search(r'<pre id="nvmesim-probe">(.*?)</pre>', dom, re.S)
    if not found:
        raise RuntimeError(f"the probe did not run in {page}: {dom[-500:]!r}")
    return json.loads(html.unescape(found.group(1)))


def screenshot(page, png, width=1280, height=2000, browser=None, timeout=120):
    """Writes a PNG of the first ``height`` pixels of ``page`` at window width ``width``."""
    browser = browser or chromium()
    png = Path(png).resolve()
    _run(browser, [f"--window-size={width},{height}", "--virtual-time-budget=10000",
                   f"--screenshot={png}", Path(page).resolve().as_uri()], timeout)
    if not png.is_file():
        raise RuntimeError(f"chromium wrote no screenshot of {page}")
    return png
