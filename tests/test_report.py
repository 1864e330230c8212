"""`taskforge report --html`: the page renders in headless Chromium and its charts are drawn."""

from __future__ import annotations

import json
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from taskforge.flows.cli import main

pytestmark = pytest.mark.usefixtures("prefect_server")
CHART_COLORS = {"gaps": (0x1F, 0x77, 0xB4), "stages": (0x2C, 0xA0, 0x2C)}


class _Charts(HTMLParser):
    """Counts drawing elements inside each chart figure."""

    def __init__(self) -> None:
        super().__init__()
        self.current: str | None = None
        self.drawn: dict[str, int] = {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "figure" and attrs.get("class") == "chart":
            self.current = attrs["id"].removeprefix("chart-")
            self.drawn[self.current] = 0
        elif self.current and tag in {"path", "rect", "line", "polyline", "use"}:
            self.drawn[self.current] += 1

    def handle_endtag(self, tag):
        if tag == "figure":
            self.current = None


def _pixels_near(image: Image.Image, color: tuple[int, int, int], tolerance: int = 12) -> int:
    pixels = np.asarray(image.convert("RGB"), dtype=np.int16)
    return int((np.abs(pixels - np.array(color)) <= tolerance).all(axis=-1).sum())


def test_html_report_renders_with_drawn_charts(capsys, tmp_path):
    chromium = shutil.which("chromium")
    assert chromium, "Debian's chromium package is needed (CI installs it)"
    data_dir = tmp_path / "data"
    code = main(["cycle", "--data-dir", str(data_dir), "--budget", "3", "--target-tokens", "4096", "--json"])
    assert code == 0, capsys.readouterr().err[-4000:]
    capsys.readouterr()
    assert main(["report", "--data-dir", str(data_dir), "--html", str(tmp_path / "report"), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    page = Path(report["html"])
    for name in ("gaps", "trend", "funnel", "rejections", "stages"):
        png = np.asarray(Image.open(tmp_path / "report" / "charts" / f"{name}.png").convert("RGB"))
        assert png.shape[1] > 300 and len(np.unique(png.reshape(-1, 3), axis=0)) > 10, f"{name}.png is blank"

    parser = _Charts()
    parser.feed(page.read_text())
    assert set(parser.drawn) == {"gaps", "trend", "funnel", "rejections", "stages"}
    assert all(count > 5 for count in parser.drawn.values()), parser.drawn

    shot = tmp_path / "shot.png"
    done = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1280,3000", f"--screenshot={shot}",
         page.as_uri()], capture_output=True, text=True, timeout=120)
    assert shot.exists(), done.stderr[-2000:]
    image = Image.open(shot).convert("RGB")
    for name, color in CHART_COLORS.items():
        assert _pixels_near(image, color) > 500, f"the {name} chart's bars are not on the screenshot"
