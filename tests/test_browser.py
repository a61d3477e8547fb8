"""The report in a real browser: Debian's Chromium driven by Playwright (never a downloaded browser).

Filters, search, stepping, the state view, the sequence diagram's and the lifecycles' highlights,
a page of a thousand traces, and a screenshot checked for size and ink (not compared pixel-exact).
"""
from __future__ import annotations

import importlib.util
import json
import struct
import time
import zlib
from pathlib import Path

import pytest

from verifier.writers import report
from verifier.writers.diagrams import svg
from verifier.writers.report import page as report_page

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


def _module(name: str):
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed (/usr/bin/chromium): apt-get install -y chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("the playwright package is not installed (pip install -e '.[browser]')")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """Two synthetic traces (the first named by the check result) and a lost response recorded from the model."""
    root = tmp_path_factory.mktemp("site")
    s = _module("synthetic_trace")
    first = s.write(root / "cx")
    s.write(root / "cx", variant="mrtr-grace-window")
    lost = _module("recorded_trace")
    lost.record(root / "cx", *lost.LOST)
    (root / "check.json").write_text(json.dumps(s.check_result(first.as_posix())), encoding="utf-8")
    assert report.main(["--out", str(root / "index.html"), "--check", str(root / "check.json"),
                        "--counterexamples", str(root / "cx")]) == 0
    return (root / "index.html").as_uri()


@pytest.fixture()
def page(browser):
    ctx = browser.new_context(viewport={"width": 1200, "height": 900})
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    ctx.close()
    assert not errors, errors


def _open(pg, url: str):
    pg.goto(url)
    pg.wait_for_selector("html[data-ready='1']", state="attached")
    return pg


def _shown(pg) -> str:
    return pg.locator(".filters .shown").inner_text()


def test_filters_hide_rows_and_traces(page, site):
    _open(page, site)
    total = int(_shown(page).split(" of ")[1].split()[0])
    assert _shown(page) == f"{total} of {total} shown"
    page.select_option('select[data-filter="verdict"]', "refuted")
    assert _shown(page) == f"1 of {total} shown"           # the OWN-2 row (the synthetic traces name no verdict)
    assert page.locator('tr[data-verdict="holds"]').is_hidden()
    assert page.locator('tr[data-verdict="refuted"]').is_visible()
    page.locator('select[data-filter="verdict"]').select_option(index=0)
    page.select_option('select[data-filter="variant"]', "baseline")     # the recorded trace alone
    assert _shown(page) == f"1 of {total} shown" and page.locator("#cxbox-1").is_visible()
    assert page.locator("#cxbox-0").is_hidden()
    # A link sets the filters too.
    _open(page, site + "#verdict=known-gap&variant=")
    assert page.locator('select[data-filter="verdict"]').input_value() == "known-gap"
    assert _shown(page) == f"2 of {total} shown"           # the e2e-orphan-task row and its recorded trace


def test_search_matches_ids_names_and_words(page, site):
    _open(page, site)
    total = int(_shown(page).split(" of ")[1].split()[0])
    page.fill('input[data-filter="text"]', "own-2")
    assert _shown(page) == f"3 of {total} shown"
    page.fill('input[data-filter="text"]', "no such words")
    assert _shown(page) == f"0 of {total} shown"
    page.fill('input[data-filter="text"]', "")
    assert _shown(page) == f"{total} of {total} shown"


def test_stepping_with_buttons_keys_and_the_link(page, site):
    _open(page, site + "#cx=0&step=2")
    sec = page.locator("#cx-0")
    assert sec.get_attribute("data-step") == "2"
    assert sec.locator('.panel[data-i="2"]').is_visible() and sec.locator('.panel[data-i="3"]').is_hidden()
    assert "run1 starts" in sec.locator('.panel[data-i="2"]').inner_text()
    sec.locator('button[data-go="next"]').click()
    assert sec.get_attribute("data-step") == "3" and page.evaluate("location.hash") == "#cx=0&step=3"
    assert "r1.phase: received -> cancelled" in sec.locator('.panel[data-i="3"]').inner_text()
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert sec.get_attribute("data-step") == "1"
    page.keyboard.press("End")
    assert sec.get_attribute("data-step") == "4" and sec.locator('button[data-go="next"]').is_disabled()
    assert "OWN-2 broke here:" in sec.locator('.panel[data-i="4"]').inner_text()
    sec.locator('button[data-go="first"]').click()
    assert sec.get_attribute("data-step") == "0" and sec.locator('button[data-go="prev"]').is_disabled()
    # Another trace is rendered only when it is opened.
    assert page.locator("#cx-1").count() == 0
    page.locator("#cxbox-1 > summary").click()
    page.locator("#cx-1").wait_for()            # rendered on the box's toggle event
    last = str(page.locator("#cx-1 .panel").count() - 1)
    assert page.locator("#cx-1").count() == 1 and page.locator("#cx-1").get_attribute("data-step") == last


def test_the_state_view_marks_changes_and_can_show_only_them(page, site):
    _open(page, site + "#cx=0&step=2")
    sec = page.locator("#cx-0")
    runs = sec.locator('table.state-table[data-table="runs"]')
    row = runs.locator("tbody tr", has_text="run1")
    assert row.get_attribute("class") == "changed"
    assert row.locator("td.chg").all_inner_texts() == ["running", "[run.created, run.started]"]
    assert row.locator("td.chg").first.get_attribute("title") == "was pending"
    requests = sec.locator('table.state-table[data-table="requests"]')
    assert requests.is_visible() and requests.locator("tbody tr").get_attribute("class") == "same"
    sec.locator("input.only-changes").check()
    assert requests.is_hidden() and runs.is_visible()                 # nothing of a request changed at step 2
    page.keyboard.press("ArrowRight")                                 # the arrow keys still step from the toggle
    assert requests.is_visible() and requests.locator("td.chg").first.inner_text() == "cancelled"
    sec.locator("input.only-changes").uncheck()
    assert sec.locator('table.state-table[data-table="world"]').is_visible()
    # Step 1 creates the run and the request: new rows.
    page.goto(site + "#cx=0&step=1")
    assert runs.locator("tbody tr").get_attribute("class") == "new changed"


def test_the_sequence_diagram_and_every_lifecycle_follow_the_step(page, site):
    _open(page, site + "#cx=0&step=2")
    sec = page.locator("#cx-0")
    steps = sec.locator("svg.sequence g.sq-step")
    assert steps.count() == 4
    assert sec.locator("#cx0-sq-2").get_attribute("class") == "sq-step current"
    assert sec.locator("#cx0-sq-1").get_attribute("class") == "sq-step"
    assert sec.locator("#cx0-sq-3").get_attribute("class") == "sq-step future"
    assert "sq-last" in sec.locator("#cx0-sq-4").get_attribute("class")
    assert "⚠ violation: OWN-2 breaks OWN-2" in sec.locator("#cx0-sq-4").text_content()
    run_paths = sec.locator('.lc[data-lc="run"] .lc-paths')
    assert run_paths.inner_text() == "▶ run1: pending → running"
    if svg.dot_path() is None and not Path("diagrams/run-lifecycle.svg").is_file():
        pytest.skip("no lifecycle SVG to highlight (Graphviz `dot` missing and no committed diagrams/)")
    assert sec.locator("#cx0-run-running").get_attribute("class") == "node visited current"
    assert sec.locator("#cx0-run-pending").get_attribute("class") == "node visited"
    assert "taken" in sec.locator('g.edge[id^="cx0-run-edge-pending--running--"]').first.get_attribute("class")
    assert sec.locator("#cx0-run-completed").get_attribute("class") == "node"
    page.keyboard.press("End")
    assert sec.locator("#cx0-run-completed").get_attribute("class") == "node visited violation"
    assert sec.locator('.lc[data-lc="request"] .lc-paths').inner_text() == "r1: received → cancelled"
    # The lost response of the recorded trace: the request's sent -> lost is highlighted, not only the run.
    lost = page.locator("details.cxbox", has_text="e2e-orphan-task")
    n = lost.get_attribute("data-cx")
    _open(page, site + f"#cx={n}")
    sec = page.locator(f"#cx-{n}")
    assert sec.locator('.lc[data-lc="request"] .lc-paths').inner_text() == "▶ r1: received → sent → lost"
    assert sec.locator(f"#cx{n}-request-lost").get_attribute("class") == "node visited violation"
    assert sec.locator(f"#cx{n}-request-sent").get_attribute("class") == "node visited"
    assert "lost in the network" in sec.locator(f"#cx{n}-sq-3").text_content()
    # The harness's record of the call is still `calling`: it never learnt of the task.
    assert sec.locator('.lc[data-lc="tool_execution"] .lc-paths').inner_text() == "H1/op1: calling"
    assert sec.locator(f"#cx{n}-tool_execution-calling").get_attribute("class") == "node visited current"
    executions = sec.locator('table.state-table[data-table="executions"] tbody tr', has_text="H1/op1")
    assert executions.count() == 1 and "calling" in executions.inner_text()


def _png(data: bytes) -> tuple[int, int, list[bytes], int]:
    """An 8-bit RGB or RGBA PNG (what Chromium writes) as (width, height, rows of pixels, bytes per pixel)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), (depth, colour)
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride, rows, prev = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, rows, bpp


def test_a_screenshot_at_420_px_is_not_blank_and_does_not_scroll_sideways(browser, site):
    ctx = browser.new_context(viewport={"width": 420, "height": 900}, device_scale_factor=1)
    pg = ctx.new_page()
    try:
        _open(pg, site + "#cx=0&step=3")
        assert pg.evaluate("document.documentElement.scrollWidth") <= 420, "the page is wider than the window"
        pg.locator("#cx-0 .controls").scroll_into_view_if_needed()
        width, height, rows, bpp = _png(pg.screenshot())
    finally:
        ctx.close()
    assert (width, height) == (420, 900)
    sample = [row[i:i + 3] for row in rows[::5] for i in range(0, len(row), bpp * 5)]
    background = max(set(sample), key=sample.count)
    ink = sum(1 for px in sample if px != background)
    assert len(set(sample)) > 20 and ink > len(sample) // 50, (len(set(sample)), ink, len(sample))


def test_a_thousand_traces_open_quickly(browser, tmp_path):
    """Lazy rendering: a page of 1,000 traces loads with none rendered and opens one on demand."""
    one = report_page.load_counterexample(_module("synthetic_trace").write(tmp_path / "cx"))
    html, _ = report_page.build_page(None, None, [one] * 1000, [], Path("diagrams"))
    (tmp_path / "big.html").write_text(html, encoding="utf-8")
    assert len(html) < 15_000_000, len(html)
    ctx = browser.new_context(viewport={"width": 1200, "height": 900})
    pg = ctx.new_page()
    try:
        started = time.monotonic()
        _open(pg, (tmp_path / "big.html").as_uri() + "#cx=999&step=2")
        took = time.monotonic() - started
        assert pg.locator("section.cx").count() == 1 and pg.locator("#cx-999").get_attribute("data-step") == "2"
        assert pg.locator("details.cxbox").count() == 1000
        pg.keyboard.press("ArrowRight")
        assert pg.locator("#cx-999").get_attribute("data-step") == "3"
    finally:
        ctx.close()
    assert took < 15, f"the page of 1,000 traces took {took:.1f} s to open one"


# Pairs of text elements (not lines of one label) whose boxes, as Chromium lays them out at the
# SVG's own size, overlap by more than a pixel across and two down (a label's lines share a group).
OVERLAPS = """() => { const out = [];
document.querySelectorAll("div[data-name]").forEach(d => {
  const r = Array.from(d.querySelectorAll("text")).filter(t => t.textContent.trim())
    .map(t => [t.textContent, t.getBoundingClientRect(), t.parentNode]);
  for (let i = 0; i < r.length; i++) for (let j = i + 1; j < r.length; j++) {
    if (r[i][2] === r[j][2]) { continue; }
    const a = r[i][1], b = r[j][1];
    const w = Math.min(a.right, b.right) - Math.max(a.left, b.left), h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
    if (w > 1 && h > 2) { out.push(d.getAttribute("data-name") + ": " + r[i][0] + " / " + r[j][0]); }
  }
}); return out; }"""


def test_no_generated_svg_has_overlapping_labels(browser, tmp_path):
    """What `taskmodel diagrams` writes (the lifecycles, the highlighted path beside every committed
    trace) and the report's sequence diagram of every committed trace."""
    from verifier.writers import diagrams
    from verifier.writers.diagrams import sequence, trace
    root = Path(__file__).resolve().parent.parent
    drawn: dict[str, str] = {}
    if svg.dot_path() is not None:
        plans = [diagrams.plan_lifecycles(tmp_path / "d"), diagrams.plan_traces(root / "counterexamples")]
        drawn.update((p.as_posix(), text) for plan in plans for p, text in plan.files.items() if p.suffix == ".svg")
    traces = diagrams.trace_files(root / "counterexamples")
    drawn.update((f"{p.relative_to(root).as_posix()} (sequence)", sequence.to_svg(sequence.build(trace.load(p))))
                 for p in traces)
    if not drawn:
        pytest.skip("no SVG to check: Graphviz `dot` is missing and no trace is committed")
    body = "".join(f'<div data-name="{name}">{svg.inline(text)}</div>' for name, text in sorted(drawn.items()))
    (tmp_path / "all.html").write_text(f"<!DOCTYPE html><html><body>{body}</body></html>", encoding="utf-8")
    ctx = browser.new_context()
    pg = ctx.new_page()
    try:
        pg.goto((tmp_path / "all.html").as_uri())
        assert pg.locator("svg text").count() > 100
        found = pg.evaluate(OVERLAPS)
    finally:
        ctx.close()
    assert not found, f"{len(found)} overlapping label(s): " + "; ".join(found[:5])
