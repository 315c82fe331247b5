#!/usr/bin/env python3
"""Keeps the reference pages honest, cheaply (ctest `docs_links`).

Fails (exit 1, one line per problem) when
- a reference page (REFERENCE_PAGES) has a dated heading: a heading with a YYYY-MM-DD
  date in it. Dated material belongs in docs/journal/YYYY-MM-DD-topic.md, linked from the
  reference line it supports;
- a relative Markdown link in README.md, docs/*.md or docs/journal/*.md points at a file
  that does not exist, or at a heading anchor (#...) that the target page does not have
  (anchors as GitHub makes them from headings).

Links in code spans and fenced code blocks are not links. Usage: check_docs.py [REPO]
"""
import re
import sys
from pathlib import Path

REFERENCE_PAGES = ["docs/calibration.md", "docs/calibrating.md", "docs/reliability.md", "docs/performance.md", "docs/drive-model.md"]

DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")


def lines_outside_fences(text):
    """(line number, line) of every line outside fenced code blocks."""
    fence = None
    for n, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if m:
            if fence is None:
                fence = m.group(1)
            elif m.group(1) == fence:
                fence = None
            continue
        if fence is None:
            yield n, line


def slug(heading):
    """GitHub's anchor for a heading: lower case, markup and punctuation dropped (letters,
    digits, '_', '-' and spaces kept), spaces turned into '-'."""
    h = re.sub(r"`([^`]*)`", r"\1", heading)
    h = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", h)   # a link in a heading: its text
    h = re.sub(r"<[^>]+>", "", h)
    h = h.strip().lower()
    h = "".join(c for c in h if c.isalnum() or c in "_- ")
    return h.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        seen, out = {}, set()
        for _, line in lines_outside_fences(path.read_text(encoding="utf-8")):
            m = HEADING.match(line)
            if not m:
                continue
            s = slug(m.group(2))
            k = seen.get(s, 0)
            seen[s] = k + 1
            out.add(s if k == 0 else f"{s}-{k}")
        cache[path] = out
    return cache[path]


def check(repo):
    problems = []
    for rel in REFERENCE_PAGES:
        page = repo / rel
        if not page.exists():
            problems.append(f"{rel}: reference page missing")
            continue
        for n, line in lines_outside_fences(page.read_text(encoding="utf-8")):
            m = HEADING.match(line)
            if m and DATE.search(m.group(2)):
                problems.append(f"{rel}:{n}: dated heading in a reference page (move it to "
                                f"docs/journal/ and link it): {line.strip()}")
    pages = [repo / "README.md"] + sorted((repo / "docs").glob("*.md")) \
        + sorted((repo / "docs" / "journal").glob("*.md"))
    for page in pages:
        rel = page.relative_to(repo)
        for n, line in lines_outside_fences(page.read_text(encoding="utf-8")):
            for m in LINK.finditer(CODE_SPAN.sub("", line)):
                target = m.group(1)
                if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):   # http:, mailto:, ...
                    continue
                file_part, _, anchor = target.partition("#")
                dest = (page.parent / file_part).resolve() if file_part else page
                if not dest.exists():
                    problems.append(f"{rel}:{n}: link to a missing file: {target}")
                    continue
                if anchor and dest.suffix == ".md" and anchor.lower() not in anchors(dest):
                    problems.append(f"{rel}:{n}: link to a missing heading: {target}")
    return problems


def main():
    repo = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[1])
    problems = check(repo.resolve())
    for p in problems:
        print(p)
    if problems:
        print(f"check_docs: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print("check_docs: reference pages undated, every relative link resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
