"""The page in a real browser: Debian's Chromium, headless, driven by Selenium with the system chromedriver.

Skips with a message where no browser is installed (docker/install-system-deps.sh installs one).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


@pytest.fixture(scope="module")
def browser():
    webdriver = pytest.importorskip(
        "selenium.webdriver", reason="selenium is not installed (pip install -e '.[dev]')"
    )
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        pytest.skip("no Chromium and chromedriver (bash docker/install-system-deps.sh installs them)")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000"):
        options.add_argument(flag)
    # the system driver, given by path: Selenium Manager must not try to download one
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=CHROMEDRIVER))
    yield driver
    driver.quit()


def test_ask_read_the_answer_and_open_its_evidence_page(browser, served_embedded, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as shown
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(served_embedded.url + "/")
    box = browser.find_element(By.ID, "question")
    box.send_keys("2022年示例科技的研发费用是多少元?")
    browser.find_element(By.ID, "send").click()
    wait = WebDriverWait(browser, 60)
    wait.until(lambda b: "241986307.90" in b.find_element(By.ID, "answer").text)
    meta = browser.find_element(By.ID, "meta").text
    assert "type: lookup" in meta and "route: lookup:facts" in meta
    items = browser.find_elements(By.CSS_SELECTOR, "#evidence li")
    assert items and "研发费用" in items[0].text and "p. 5" in items[0].text
    items[0].click()
    image = wait.until(shown.presence_of_element_located((By.ID, "evidence-image")))
    loaded = "const i = arguments[0]; return i.complete && i.naturalWidth > 0;"
    wait.until(lambda b: b.execute_script(loaded, image))
    assert "/pages/5.png?highlight=" in image.get_attribute("src")
    # the browser shows the boxed page: red pixels of the box in the rendered image
    image.screenshot(str(tmp_path / "evidence.png"))
    from PIL import Image

    shot = Image.open(tmp_path / "evidence.png").convert("RGB")
    reds = sum(
        1
        for x in range(shot.width)
        for y in range(shot.height)
        if (lambda p: p[0] > 180 and p[1] < 90 and p[2] < 90)(shot.getpixel((x, y)))
    )
    assert reds > 20
