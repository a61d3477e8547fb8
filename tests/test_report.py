"""The static HTML report: self-contained, with a step-through view that works in a real browser."""
from __future__ import annotations

import importlib.util
import json
import re
import struct
import subprocess
import tempfile
import time
import zlib
from pathlib import Path

import pytest

from verifier import report
from verifier.diagrams import svg

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _sample():
    spec = importlib.util.spec_from_file_location("synthetic_trace", Path(__file__).with_name("synthetic_trace.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture()
def site(tmp_path, monkeypatch):
    """A check result naming one counterexample, and a second counterexample only in the folder."""
    monkeypatch.chdir(tmp_path)
    s = _sample()
    first = s.write(Path("counterexamples"))
    s.write(Path("counterexamples"), variant="mrtr-grace-window")
    Path("check.json").write_text(json.dumps(s.check_result(first.as_posix())), encoding="utf-8")
    code = report.main(["--out", "report/index.html", "--check", "check.json", "--counterexamples",
                        "counterexamples"])
    assert code == 0
    return tmp_path / "report" / "index.html"


def test_report_is_self_contained(site):
    html = site.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>")
    assert not re.search(r"<(script|img|link|iframe)[^>]*\s(src|href)=", html), "the page loads a resource"
    assert "http://" not in html.replace("http://www.w3.org/", "") and "https://" not in html
    assert "<style>" in html and "<script>" in html
    assert str(site.parent.parent) not in html, "the page holds a machine path"


def test_report_lists_every_property_and_its_verdict(site):
    html = site.read_text(encoding="utf-8")
    for name, verdict in (("OWN-1", "holds"), ("OWN-2", "refuted"), ("e2e-orphan-task", "known-gap"),
                          ("CRT-2", "vacuous")):
        assert f"<code>{name}</code>" in html and f">{verdict}</span>" in html
    assert 'href="#cx=0&amp;step=4"' in html
    assert html.count('<section class="cx"') == 2     # the check's trace once, and the folder's other one


def test_report_has_a_step_panel_per_step(site):
    html = site.read_text(encoding="utf-8")
    assert html.count('class="panel" data-i=') == 10
    assert "r1.phase: received -&gt; cancelled" in html
    assert "OWN-2 broke here:" in html
    if svg.dot_path() is not None:
        assert 'id="cx0-run-completed"' in html and 'id="cx1-run-completed"' in html


def test_report_without_check_or_dot(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(svg, "dot_path", lambda: None)
    _sample().write(Path("cx"))
    assert report.main(["--out", "r.html", "--counterexamples", "cx", "--diagrams", "nowhere"]) == 0
    html = Path("r.html").read_text(encoding="utf-8")
    assert "No check result was given" in html
    assert "Graphviz <code>dot</code> is missing" in html and "pending (step 1)" in html
    assert "dot` not found" in capsys.readouterr().err


def _latest(trace_path: str) -> dict:
    """A check result as `taskmodel check --engine all` writes it: one object, a result per engine."""
    hyp = _sample().check_result(trace_path)
    bfs = dict(hyp, engine="bfs", scope={"name": "host-small", "tenants": 1},
               states={"distinct": 812, "complete": True},
               properties=[dict(p, trace=None) for p in hyp["properties"][:3]])
    return {"schema_version": 1, "tool": {"name": "taskmodel", "version": "0.1"}, "command": "check",
            "variant": hyp["variant"], "results": [hyp, bfs],
            "expectations": [{"id": "OWN-2", "want": "refuted", "got": ["refuted"], "met": True}], "exit_code": 1}


def test_report_with_no_flags_reads_the_latest_check(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    first = _sample().write(Path("counterexamples"))
    Path("out").mkdir()
    Path("out/latest-check.json").write_text(json.dumps(_latest(first.as_posix())), encoding="utf-8")
    assert report.main([]) == 0
    said = capsys.readouterr().out
    assert "7 properties (hypothesis 4, bfs 3) from out/latest-check.json, 1 counterexample(s)" in said
    html = Path("out/report/index.html").read_text(encoding="utf-8")
    assert 'id="engine-hypothesis"' in html and 'id="engine-bfs"' in html and "exit code 1" in html
    # Bounds, scope and coverage are tables, not JSON.
    assert "<td><code>max_runs</code></td><td>4</td>" in html
    assert "<td><code>name</code></td><td>host-small</td>" in html
    assert "<td><code>call_tool</code></td><td class=num>3</td>" in html and '{"max_runs"' not in html
    summary = html.split('id="summary"')[1].split("</table>")[0]
    assert re.search(r"<td>bfs</td>(<td class=num>[^<]*</td>){4}<td class=num>3</td>", summary), summary
    assert ">as expected</span>" in html
    # Filters; every row and counterexample carries what they match; counterexamples render when opened.
    assert '<select data-filter="verdict"><option value="">all</option><option value="holds">' in html
    assert '<option value="OWN">OWN</option>' in html and 'data-filter="text"' in html
    assert html.count('data-filterable data-verdict="refuted" data-area="OWN" data-ids="OWN-2"') == 2
    assert '<select data-filter="id"><option value="">all</option><option value="CRT-2">' in html
    assert html.count('<details class="cxbox"') == 1 and "<template><section class=\"cx\"" in html


def test_report_without_latest_says_so(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert report.main(["--counterexamples", "none"]) == 0
    assert "0 properties (no check result: out/latest-check.json not found)" in capsys.readouterr().out
    Path("out/latest-check.json").write_text('{"results": 3}', encoding="utf-8")
    assert report.main([]) == 3


def test_report_reads_a_typed_trace_of_the_model(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    spec = importlib.util.spec_from_file_location("recorded_trace", Path(__file__).with_name("recorded_trace.py"))
    rec = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rec)
    rec.record(Path("cx"), *rec.LOST)
    assert report.main(["--out", "r.html", "--counterexamples", "cx"]) == 0
    html = Path("r.html").read_text(encoding="utf-8")
    assert html.count('class="panel" data-i=') == 4 and "r1.phase: sent -&gt; lost" in html
    assert "run1 is <b>pending</b>" in html


def test_report_bad_input_exits_3(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert report.main(["--check", "missing.json"]) == 3
    Path("bad.json").write_text("{not json", encoding="utf-8")
    assert report.main(["--check", "bad.json"]) == 3
    assert report.main(["--bogus"]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and "missing.json" in err[0] and "not JSON" in err[1]


# ---- in a real browser -----------------------------------------------------------------------------------
def _chromium(*args: str, timeout: float = 25) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run([str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", *args],
                              capture_output=True, text=True, timeout=timeout, check=False)


def _png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """Decode an 8-bit RGB or RGBA PNG (what Chromium writes) into rows of pixels."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
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
    return width, bpp, rows


@pytest.mark.browser
def test_step_through_in_headless_chromium(site):
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed (/usr/bin/chromium): apt-get install -y chromium; "
                    ".ci/run installs it through scripts/setup.sh --browser")
    started = time.monotonic()
    url = site.as_uri()
    # Step 2 of the first counterexample: the run has just started.
    done = _chromium("--dump-dom", f"{url}#cx=0&step=2")
    assert done.returncode == 0, done.stderr[-2000:]
    dom = done.stdout
    assert 'data-ready="1"' in dom, "the page's script did not run"
    first = dom[dom.index('id="cx-0"'):dom.index('id="cx-1"')]
    assert 'data-step="2"' in first
    panels = dict(re.findall(r'<div class="panel" data-i="(\d)"( hidden(?:="")?)?', first))
    assert panels == {"0": ' hidden=""', "1": ' hidden=""', "2": "", "3": ' hidden=""', "4": ' hidden=""'}, panels
    shown = re.search(r'<div class="panel" data-i="2">(.*?)</div>', first, re.S).group(1)
    assert "run_start" in shown and "run1 starts" in shown and "run1.status: pending -&gt; running" in shown
    seq = dict(re.findall(r'<li data-i="(\d)" value="\d" class="([a-z]*)"', first))
    assert seq == {"0": "", "1": "", "2": "current", "3": "future", "4": "future"}
    if svg.dot_path() is not None or Path("diagrams/run-lifecycle.svg").is_file():
        assert re.search(r'<g id="cx0-run-running" class="node visited current"', first)
        assert re.search(r'<g id="cx0-run-pending" class="node visited"', first)
        assert re.search(r'<g id="cx0-run-edge-pending--running--\d+" class="edge taken"', first)
        assert not re.search(r'<g id="cx0-run-completed" class="node[^"]*visited', first)
    # The last step: the violation is marked.
    dom = _chromium("--dump-dom", f"{url}#cx=0&step=4").stdout
    first = dom[dom.index('id="cx-0"'):dom.index('id="cx-1"')]
    assert 'data-step="4"' in first and "OWN-2 broke here:" in first
    if svg.dot_path() is not None:
        assert re.search(r'<g id="cx0-run-completed" class="node visited violation"', first)
    # What a person sees is not blank.
    assert "6 of 6 shown" in dom, "the filters did not count the rows"
    # Filters set by the link: only the refuted row; then the rows and counterexamples naming OWN-2.
    dom = _chromium("--dump-dom", f"{url}#verdict=refuted").stdout
    assert "1 of 6 shown" in dom and re.search(r'<tr data-filterable="" data-verdict="holds"[^>]* hidden=""', dom)
    assert not re.search(r'<tr data-filterable="" data-verdict="refuted"[^>]* hidden=""', dom)
    assert "3 of 6 shown" in _chromium("--dump-dom", f"{url}#text=own-2").stdout
    one = _chromium("--dump-dom", f"{url}#id=OWN-2&verdict=refuted&variant=detach-on-disconnect").stdout
    assert "1 of 6 shown" in one
    # A window tall enough for the opened counterexample: headless Chromium paints only the first
    # viewport's region after a scroll made by the page's script.
    shot = site.parent / "shot.png"
    done = _chromium("--window-size=1200,2400", f"--screenshot={shot}", f"{url}#cx=0&step=3")
    assert shot.is_file(), done.stderr[-2000:]
    width, bpp, rows = _png_pixels(shot.read_bytes())
    colours = {row[i:i + 3] for row in rows[::7] for i in range(0, len(row), bpp * 7)}
    background = rows[0][:3]
    ink = sum(1 for row in rows[::7] for i in range(0, len(row), bpp * 7) if row[i:i + 3] != background)
    assert len(colours) > 20 and ink > 500, (len(colours), ink)
    assert time.monotonic() - started < 30
