"""What every nvmesim figure and report shares so that a person can read it.

* :func:`column_label`: a column's human name with its unit ("p99 latency (µs)"), never
  the raw column name; :func:`column_scale` the factor its values are drawn with.
* :func:`plain`: tick text without scientific notation or an offset ("2500", not
  "2.5×10³").
* :func:`finish`: lays a figure out with tick labels that do not overlap (log axes get
  several labels a decade where they fit), and grows it until no text is clipped. The
  ticks it picks are fixed: an interactive zoom keeps them.
* :func:`label_points`: names scatter points, each label placed where it overlaps the
  fewest others.
* :func:`text_colour`: black or white, whichever contrasts more with a background colour
  (WCAG relative luminance).
* :func:`plural`: "1 case", "2 cases".
* :data:`REPORT_CSS`: the HTML reports' style (tables that wrap inside the page).
"""

import math

__all__ = ["COLUMN_LABELS", "REPORT_CSS", "column_label", "column_scale", "contrast_ratio",
           "finish", "humanize", "label_points", "luminance", "overflow", "plain", "plural",
           "text_colour"]

#: Human names, units and drawing scale of the columns nvmesim writes: sweep rows
#: (nvmesim.METRIC_COLUMNS and the usual grid keys), A/B case tables, compare metrics.
#: name -> (label, unit, factor the stored value is multiplied by to be in ``unit``).
COLUMN_LABELS = {
    # sweep figures (nvmesim.METRIC_COLUMNS)
    "iops": ("IOPS", "millions", 1e-6),
    "bytes_per_s": ("throughput", "GB/s", 1e-9),
    "mean_ns": ("mean latency", "µs", 1e-3),
    "p50_ns": ("p50 latency", "µs", 1e-3),
    "p90_ns": ("p90 latency", "µs", 1e-3),
    "p99_ns": ("p99 latency", "µs", 1e-3),
    "p999_ns": ("p99.9 latency", "µs", 1e-3),
    "p9999_ns": ("p99.99 latency", "µs", 1e-3),
    "max_ns": ("max latency", "µs", 1e-3),
    "irqs_per_io": ("IRQs per I/O", "", 1.0),
    "completions_per_irq": ("completions per IRQ", "", 1.0),
    "interrupts": ("interrupts", "", 1.0),
    "spurious_irqs": ("spurious IRQs", "", 1.0),
    "cpu_hardirq": ("hard-IRQ CPU time", "% of each core", 100.0),
    "cpu_softirq": ("softirq CPU time", "% of each core", 100.0),
    "cpu_irq_thread": ("IRQ-thread CPU time", "% of each core", 100.0),
    "cpu_app": ("application CPU time", "% of each core", 100.0),
    "cpu_idle": ("idle CPU time", "% of each core", 100.0),
    "cpu_busy_max": ("busiest core's utilisation", "%", 100.0),
    "mode_switches": ("mode switches", "", 1.0),
    "bound_by": ("bounding resource", "", 1.0),
    # grid keys and matrix axes
    "policy": ("completion policy", "", 1.0),
    "iodepth": ("queue depth", "per job", 1.0),
    "iodepth_batch_submit": ("submit batch", "I/Os", 1.0),
    "iodepth_batch_complete_min": ("reap batch, minimum", "I/Os", 1.0),
    "iodepth_batch_complete_max": ("reap batch, maximum", "I/Os", 1.0),
    "numjobs": ("jobs per drive", "", 1.0),
    "bs": ("block size", "", 1.0),
    "rw": ("I/O pattern", "", 1.0),
    "ioengine": ("I/O engine", "", 1.0),
    "drive": ("drive model", "", 1.0),
    "drives": ("drives", "", 1.0),
    "workload": ("workload", "", 1.0),
    "block": ("block", "", 1.0),
    "seed": ("seed", "", 1.0),
    # A/B case tables (nvmesim.ab.case_table)
    "case": ("case", "", 1.0),
    "verdict": ("IOPS verdict", "", 1.0),
    "reason": ("why", "", 1.0),
    "n": ("seed pairs", "", 1.0),
    "change_pct": ("IOPS change", "%", 1.0),
    "ci_low_pct": ("CI low", "%", 1.0),
    "ci_high_pct": ("CI high", "%", 1.0),
    "ci_pct": ("CI of the change", "%", 1.0),
    "p_value": ("p-value", "", 1.0),
    "baseline_cv_pct": ("baseline CV", "%", 1.0),
    "threshold_pct": ("threshold", "%", 1.0),
    "baseline_iops": ("baseline IOPS", "", 1.0),
    "candidate_iops": ("candidate IOPS", "", 1.0),
    "p99_change_pct": ("p99 change", "%", 1.0),
    "p99_verdict": ("p99 verdict", "", 1.0),
    "p99_regression": ("p99 regression", "", 1.0),
    "irqs_per_io_baseline": ("IRQs per I/O, baseline", "", 1.0),
    "irqs_per_io_candidate": ("IRQs per I/O, candidate", "", 1.0),
    "irqs_per_io_reduction_pct": ("IRQs per I/O reduction", "%", 1.0),
    "cpu_busy_max_baseline": ("busiest core, baseline", "%", 100.0),
    "cpu_busy_max_candidate": ("busiest core, candidate", "%", 100.0),
    "baseline_bound_by": ("baseline bounded by", "", 1.0),
    "bs_bytes": ("block size", "bytes", 1.0),
    "drives_in_case": ("drives", "", 1.0),
}

#: The HTML reports' style: tables fit the page (no sideways scrolling at a 1280 px wide
#: window; the shipped A/B matrix's 19 columns included): cells wrap between words, a
#: word longer than its column breaks; plots scale down to the page.
REPORT_CSS = (
    "body{font-family:sans-serif;max-width:1240px;margin:1em auto;padding:0 12px;"
    "line-height:1.35}"
    "table{border-collapse:collapse;font-size:12px;max-width:100%;table-layout:auto;"
    "margin:0.5em 0}"
    "td,th{border:1px solid #ccc;padding:2px 4px;vertical-align:top}"
    "td{overflow-wrap:break-word}"
    "th{background:#f0f0f0;text-align:left;font-weight:600}"
    "img{max-width:100%;height:auto;margin:4px;vertical-align:top}")

# Units a column name ends with, for the columns COLUMN_LABELS does not know.
_SUFFIX_UNITS = (("_ns", "ns"), ("_us", "µs"), ("_ms", "ms"), ("_pct", "%"),
                 ("_bytes", "bytes"), ("_per_s", "per s"))


def humanize(name):
    """A column name no table above knows, as words with its unit: "window_us" ->
    "window (µs)"."""
    text, unit = str(name), ""
    for suffix, u in _SUFFIX_UNITS:
        if text.endswith(suffix) and len(text) > len(suffix):
            text, unit = text[: -len(suffix)], u
            break
    text = text.replace("_", " ").replace(".", " ").strip() or str(name)
    return f"{text} ({unit})" if unit else text


def column_label(name, unit=True):
    """The human name of a column, with its unit unless ``unit`` is False."""
    entry = COLUMN_LABELS.get(name)
    if entry is None:
        return humanize(name) if unit else humanize(name).split(" (")[0]
    label, u, _ = entry
    return f"{label} ({u})" if unit and u else label


def column_scale(name):
    """The factor a column's values are multiplied by when drawn (ns -> µs: 1e-3)."""
    return COLUMN_LABELS.get(name, (None, None, 1.0))[2]


def plural(n, word, words=None):
    """``n`` and the noun that agrees with it: plural(1, "case") -> "1 case"."""
    return f"{n} {word if n == 1 else (words or word + 's')}"


def plain(x, digits=3):
    """A tick value as plain text: no exponent, no offset, at most ``digits``
    significant digits after rounding, with the typographic minus."""
    import numpy as np

    if x == 0 or not math.isfinite(x):
        return "0" if x == 0 else str(x)
    text = np.format_float_positional(abs(float(x)), precision=max(digits, _int_digits(x)),
                                      fractional=False, trim="-")
    return ("\N{MINUS SIGN}" if x < 0 else "") + text


def _int_digits(x):
    """Digits before the point: a large value keeps all of them (1234567, not 1230000)."""
    a = abs(x)
    return len(str(int(a))) if a >= 1 else 1


# -- colours -----------------------------------------------------------------------------

def luminance(colour):
    """WCAG 2 relative luminance of a matplotlib colour (0 black .. 1 white)."""
    from matplotlib.colors import to_rgb

    def channel(c):
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in to_rgb(colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a, b):
    """WCAG 2 contrast ratio of two colours (1 .. 21; text wants 4.5 or more)."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def text_colour(background):
    """"black" or "white", whichever contrasts more with ``background`` (at least 4.58)."""
    return "black" if contrast_ratio(background, "black") >= contrast_ratio(background, "white") \
        else "white"


# -- ticks and layout --------------------------------------------------------------------

# The order in which a decade's multiples get a label: 1 first, then 5, 2, 3, ...
_LOG_PRIORITY = ((1,), (5,), (2,), (3,), (4, 6, 8), (7, 9))
_MAX_LABELS = 8  # a log axis gets no more labels than this unless its decades need them
_PAD_PX = 4  # the least gap between two tick labels, in pixels


def _plain_formatter():
    from matplotlib.ticker import FuncFormatter

    class PlainFormatter(FuncFormatter):
        """Tick values as :func:`plain` text (marks the axes finish() has done)."""

    return PlainFormatter(lambda v, _pos: plain(v))


def _labelled(axis):
    """The tick labels the plot wrote itself (categories: set_xticks(..., labels)), which
    finish() leaves as they are: a FixedFormatter, or the FuncFormatter matplotlib 3.6
    makes of them."""
    from matplotlib.ticker import FixedFormatter, FuncFormatter

    formatter = axis.get_major_formatter()
    return isinstance(formatter, FixedFormatter) or (
        isinstance(formatter, FuncFormatter) and type(formatter).__name__ != "PlainFormatter")


def _extent(axis, renderer, value, text, prop, which):
    """The (low, high) display interval a tick label of ``value`` takes along ``axis``."""
    ax = axis.axes
    point = (value, 1.0) if which == "x" else (1.0, value)
    trans = ax.get_xaxis_transform() if which == "x" else ax.get_yaxis_transform()
    centre = trans.transform(point)[0 if which == "x" else 1]
    w, h, _ = renderer.get_text_width_height_descent(text, prop, ismath=False)
    half = (w if which == "x" else h) / 2 + _PAD_PX / 2
    return centre - half, centre + half


def _free(interval, taken):
    return all(interval[1] <= lo or interval[0] >= hi for lo, hi in taken)


def _log_candidates(lo, hi):
    """Every m x 10^k (m = 1..9) inside [lo, hi], by multiplier."""
    out = {m: [] for m in range(1, 10)}
    for k in range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1):
        for m in range(1, 10):
            v = m * 10.0 ** k
            if lo * (1 - 1e-9) <= v <= hi * (1 + 1e-9):
                out[m].append(float(f"{v:.12g}"))
    return out


def _choose_log_ticks(axis, renderer, lo, hi, which):
    """Major ticks of a log axis whose labels do not overlap: the decades, then the 5s,
    2s, 3s ... of each decade, a whole class at a time while it fits; a range narrower
    than that grid gets evenly spaced plain values instead."""
    from matplotlib.ticker import MaxNLocator

    prop = _tick_prop(axis)
    candidates = _log_candidates(lo, hi)
    chosen, taken = [], []
    if hi / lo < 8 or sum(len(v) for v in candidates.values()) < 3:
        # Inside about a decade the 1..9 grid leaves stretches unlabelled (120-200 of a
        # 120-400 axis): evenly spaced round values instead, as on a linear axis.
        def nice(bins):
            return [v for v in MaxNLocator(nbins=bins, steps=[1, 2, 2.5, 5, 10])
                    .tick_values(lo, hi) if lo <= v <= hi]

        major = _thin(axis, renderer, nice(3), which)
        for bins in (12, 10, 8, 6, 5, 4):  # the finest even steps whose labels fit
            values = nice(bins)
            spans = [_extent(axis, renderer, v, plain(v), prop, which) for v in values]
            if len(values) >= 2 and all(_free(sp, spans[:i]) for i, sp in enumerate(spans)):
                major = values
                break
        return major, [v for vs in candidates.values() for v in vs if v not in major]
    decades, stride = candidates[1], 1
    for stride in range(1, len(decades) + 1):  # decades overlapping: every 2nd, 3rd...
        picked = decades[::stride]
        spans = [_extent(axis, renderer, v, plain(v), prop, which) for v in picked]
        if all(_free(s, spans[:i]) for i, s in enumerate(spans)):
            chosen, taken = list(picked), spans
            break
    if stride == 1 or not decades:
        for group in _LOG_PRIORITY[1:]:
            values = [v for m in group for v in candidates[m]]
            if not values:
                continue
            if len(chosen) + len(values) > _MAX_LABELS and len(chosen) >= 2:
                break
            spans = [_extent(axis, renderer, v, plain(v), prop, which) for v in values]
            if all(_free(s, taken + spans[:i]) for i, s in enumerate(spans)):
                chosen += values
                taken += spans
            else:
                break
    if len(chosen) < 2 and len(decades) < 2:
        # A range of about a decade where the 5s did not fit: at least its two ends' ticks.
        values = sorted(v for vs in candidates.values() for v in vs)
        chosen = _thin(axis, renderer, values, which)
    minor = sorted(v for vs in candidates.values() for v in vs if v not in chosen)
    return sorted(chosen), minor


def _thin(axis, renderer, values, which):
    """Every k-th of ``values``, with the smallest k whose labels do not overlap."""
    prop = _tick_prop(axis)
    for stride in range(1, max(2, len(values) + 1)):
        picked = values[::stride]
        spans = [_extent(axis, renderer, v, plain(v), prop, which) for v in picked]
        if all(_free(s, spans[:i]) for i, s in enumerate(spans)):
            return list(picked)
    return list(values[:1])


def _tick_prop(axis):
    ticks = axis.get_major_ticks()
    if ticks:
        return ticks[0].label1.get_fontproperties()
    from matplotlib.font_manager import FontProperties

    return FontProperties(size=axis.axes.xaxis.label.get_size())


def _fix_axis(axis, renderer, which):
    """Plain tick labels that do not overlap on one numeric axis, measured at the axes'
    current position; categorical labels (a FixedFormatter's) are rotated when theirs
    overlap. Returns True when it changed nothing (the labels already fitted)."""
    from matplotlib.ticker import FixedLocator, NullFormatter, ScalarFormatter

    lo, hi = sorted(axis.get_view_interval())
    scale = axis.get_scale()
    locator, formatter = axis.get_major_locator(), axis.get_major_formatter()
    if _labelled(axis):
        if which != "x" or axis.get_ticklabels()[:1] and axis.get_ticklabels()[0].get_rotation():
            return True
        prop = _tick_prop(axis)
        ticks = [(v, formatter(v, i)) for i, v in enumerate(locator())]
        spans = [_extent(axis, renderer, v, t, prop, which) for v, t in ticks
                 if t and lo <= v <= hi]
        if all(_free(sp, spans[:i]) for i, sp in enumerate(spans)):
            return True
        axis.axes.tick_params(axis="x", labelrotation=35)
        for t in axis.get_ticklabels():
            t.set_ha("right")
            t.set_rotation_mode("anchor")
        return False
    if isinstance(locator, FixedLocator) and getattr(axis, "_nvmesim_plain", False):
        # Chosen before (an earlier round): keep them while they still fit.
        values = [v for v in locator() if lo <= v <= hi]
        kept = _thin(axis, renderer, values, which)
        if len(kept) == len(values):
            return True
        if scale == "log" and lo > 0 and not getattr(axis, "_nvmesim_given", False):
            major, minor = _choose_log_ticks(axis, renderer, lo, hi, which)
            axis.set_major_locator(FixedLocator(major))
            axis.set_minor_locator(FixedLocator(minor))
        else:
            axis.set_major_locator(FixedLocator(kept))
        return False
    if isinstance(locator, FixedLocator):
        # Ticks the plot chose (the swept values): plain labels, thinned where they overlap.
        values = [v for v in locator() if lo <= v <= hi]
        axis.set_major_formatter(_plain_formatter())
        axis.set_minor_formatter(NullFormatter())
        axis._nvmesim_given = True
        if values:
            axis.set_major_locator(FixedLocator(_thin(axis, renderer, values, which)))
    elif scale == "log" and lo > 0 and math.isfinite(hi):
        major, minor = _choose_log_ticks(axis, renderer, lo, hi, which)
        axis.set_major_locator(FixedLocator(major))
        axis.set_minor_locator(FixedLocator(minor))
        axis.set_major_formatter(_plain_formatter())
        axis.set_minor_formatter(NullFormatter())
    elif scale == "linear" and isinstance(formatter, ScalarFormatter):
        span = abs(hi - lo)
        values = [v for v in locator() if lo - 1e-9 * span <= v <= hi + 1e-9 * span]
        axis.set_major_formatter(_plain_formatter())
        if values:
            axis.set_major_locator(FixedLocator(_thin(axis, renderer, values, which)))
    else:
        return True
    axis._nvmesim_plain = True
    return False


def _texts(fig):
    """Every visible text of ``fig`` that a reader needs whole."""
    from matplotlib.text import Text

    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()
            and t.get_in_layout()]


def overflow(fig, renderer=None):
    """How many pixels of text stick out of the figure on its (left, bottom, right,
    top) sides, as last drawn (draw the figure first); all zero when nothing is clipped."""
    renderer = renderer or fig.canvas.get_renderer()
    box = fig.bbox
    worst = [0.0, 0.0, 0.0, 0.0]
    for t in _texts(fig):
        e = t.get_window_extent(renderer)
        if not all(math.isfinite(v) for v in e.extents):
            continue  # a tick outside its axis's range: not drawn
        worst = [max(worst[0], box.x0 - e.x0), max(worst[1], box.y0 - e.y0),
                 max(worst[2], e.x1 - box.x1), max(worst[3], e.y1 - box.y1)]
    return tuple(worst)


def _layout(fig):
    """Lays ``fig`` out (its layout engine, else tight_layout) without drawing it."""
    import warnings

    engine = fig.get_layout_engine()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "not compatible with tight_layout"
        if engine is None:
            fig.tight_layout()
        else:
            engine.execute(fig)


def _sticking_out(fig, renderer):
    """Pixels of the figure's laid-out content outside it: (left, bottom, right, top)."""
    box = fig.get_tightbbox(renderer)  # inches
    w, h = fig.get_size_inches()
    dpi = fig.dpi
    return (max(0.0, -box.x0) * dpi, max(0.0, -box.y0) * dpi, max(0.0, box.x1 - w) * dpi,
            max(0.0, box.y1 - h) * dpi)


def finish(fig, max_rounds=4):
    """Readies ``fig`` for reading: plain tick labels that do not overlap on every
    numeric axis (log axes with as many labels a decade as fit), laid out, and while text
    sticks out of the figure (a title wider than it), a larger figure. Returns ``fig``."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if not hasattr(fig.canvas, "get_renderer"):
        FigureCanvasAgg(fig)
    renderer = fig.canvas.get_renderer()
    for _ in range(max_rounds):
        settled = True
        for ax in fig.axes:
            if ax.get_visible() and ax.axison:
                settled &= _fix_axis(ax.xaxis, renderer, "x")
                settled &= _fix_axis(ax.yaxis, renderer, "y")
        _layout(fig)
        if not settled:
            continue  # the labels were chosen at the old positions: check them again
        left, bottom, right, top = _sticking_out(fig, renderer)
        if max(left, bottom, right, top) <= 0.5:
            break
        w, h = fig.get_size_inches()
        fig.set_size_inches(w + (left + right + 8) / fig.dpi, h + (bottom + top + 8) / fig.dpi)
        _layout(fig)
    return fig


def label_points(ax, xs, ys, texts, fontsize=7):
    """Writes ``texts[i]`` next to the point (xs[i], ys[i]) of ``ax``, each where it
    overlaps the fewest labels placed before it, the points and the axes' edges. Call
    after the axes' limits and layout are final (after :func:`finish`). Returns the
    annotations."""
    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    inside = ax.get_window_extent(renderer)
    # Points drawn on top of one another get one label with all their names.
    merged = {}
    for x, y, text in zip(xs, ys, texts):
        px, py = ax.transData.transform((x, y))
        key = next((k for k in merged if abs(k[0] - px) < 2 and abs(k[1] - py) < 2), (px, py))
        merged.setdefault(key, [x, y, []])[2].append(str(text))
    xs, ys = [m[0] for m in merged.values()], [m[1] for m in merged.values()]
    texts = [", ".join(m[2]) for m in merged.values()]
    points = list(merged)
    marker = 5.0  # half a marker, pixels
    obstacles = [(px - marker, py - marker, px + marker, py + marker) for px, py in points]
    offsets = ((5, 5, "left", "bottom"), (5, -5, "left", "top"), (-5, 5, "right", "bottom"),
               (-5, -5, "right", "top"), (0, 7, "center", "bottom"), (0, -7, "center", "top"),
               (7, 0, "left", "center"), (-7, 0, "right", "center"))
    placed, choices = [], []
    pad = 2.0  # pixels kept clear around a label, and between a label and the frame
    inside = inside.padded(-pad)
    for (px, py), text in zip(points, texts):
        best = None
        w, h, d = renderer.get_text_width_height_descent(text, _font(fontsize), ismath=False)
        w, h = w + 2 * pad, h + d + 2 * pad
        for dx, dy, ha, va in offsets:
            ox, oy = dx * fig.dpi / 72, dy * fig.dpi / 72
            x0 = px + ox - (w if ha == "right" else w / 2 if ha == "center" else 0)
            y0 = py + oy - (h if va == "top" else h / 2 if va == "center" else 0)
            box = (x0, y0, x0 + w, y0 + h)
            cost = sum(_area(box, o) for o in obstacles + placed)
            outside = (max(0, inside.x0 - box[0]) + max(0, box[2] - inside.x1)) * h + \
                (max(0, inside.y0 - box[1]) + max(0, box[3] - inside.y1)) * w
            cost += 4 * outside
            if best is None or cost < best[0]:
                best = (cost, box, (dx, dy, ha, va))
        placed.append(best[1])
        choices.append(best[2])
    annotations = []
    for x, y, text, (dx, dy, ha, va) in zip(xs, ys, texts, choices):
        ann = ax.annotate(text, (x, y), xytext=(dx, dy), textcoords="offset points",
                          ha=ha, va=va, fontsize=fontsize, color="#333333")
        ann.set_in_layout(False)
        annotations.append(ann)
    return annotations


def _font(size):
    from matplotlib.font_manager import FontProperties

    return FontProperties(size=size)


def _area(a, b):
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0
