"""`sipml report -f html -o report.html`: one self-contained page an architect can mail — tables, the figures
embedded, the assumptions, the validation — checked in a real headless browser where one is installed."""

import importlib.util
import re
import shutil
import subprocess

import pytest


# found, not imported at collection: the report imports matplotlib when it draws
pytestmark = pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="matplotlib is not installed")


@pytest.fixture(scope="module")
def page(html_report_run):
    return html_report_run[2] / "report.html"  # the page test_report_document reads too (one run per process)


def test_the_page_is_self_contained(page):
    text = page.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")
    images = re.findall(r'<img alt="([^"]+)" src="data:image/png;base64,([A-Za-z0-9+/=]+)"', text)
    assert len(images) == 5 and all(len(data) > 10_000 for _, data in images)
    assert not re.search(r'(src|href)="(https?:|//)', text)  # nothing fetched from elsewhere
    for heading in ("The optical link", "Fabrics side by side", "Training", "Validation", "Assumptions"):
        assert heading in text
    assert text.count("<table>") >= 5 and re.search(r"\b(\d+) of \1 published cases inside", text)


@pytest.mark.skipif(shutil.which("chromium") is None, reason="no headless Chromium (Debian package 'chromium')")
def test_the_page_renders_in_headless_chromium(page, tmp_path):
    """A screenshot of the rendered page: not blank, and the figures drawn (pixels of the house palette's blue
    and orange, which only the figures use)."""
    import matplotlib.image as mpimg
    import numpy as np

    shot = tmp_path / "report.png"
    subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    "--window-size=1280,4200", f"--screenshot={shot}", page.as_uri()], check=True,
                   capture_output=True, timeout=120)
    pixels = mpimg.imread(shot)[..., :3]
    assert pixels.shape[:2] == (4200, 1280) and pixels.std() > 0.05
    blue = np.all(np.abs(pixels - np.array([0, 114, 178]) / 255) < 0.06, axis=-1).sum()
    orange = np.all(np.abs(pixels - np.array([230, 159, 0]) / 255) < 0.06, axis=-1).sum()
    assert blue > 5_000 and orange > 5_000
    shutil.copy(shot, page.with_name("report-screenshot.png"))  # kept beside the page among the test's artefacts
