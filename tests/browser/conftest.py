"""A real headless Chromium driven by Selenium against pytest-django's live_server.

Debian's `chromium` and `chromium-driver` (scripts/test installs them when missing). Screenshots go
to a fresh temporary folder whose path is printed (`pytest -s` shows it)."""

import shutil
import tempfile
from pathlib import Path

import pytest

from tests.browser.webclient import CHROMEDRIVER, CHROMIUM, HEADLESS_FLAGS

FLAGS = [*HEADLESS_FLAGS, "--window-size=1400,1000"]


@pytest.fixture(scope="session")
def screenshots_dir() -> Path:
    path = Path(tempfile.mkdtemp(prefix="bh-admin-screenshots-"))
    print(f"\nbrowser screenshots: {path}")
    return path


@pytest.fixture
def browser(screenshots_dir):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    for binary in (CHROMIUM, CHROMEDRIVER):
        if not Path(binary).exists():
            pytest.fail(
                f"{binary} is missing: apt-get install -y chromium chromium-driver (scripts/test does)"
            )
    profile = tempfile.mkdtemp(prefix="bh-chromium-profile-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in [*FLAGS, f"--user-data-dir={profile}"]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    # Generous: on a loaded CI machine a live_server page can take seconds.
    driver.implicitly_wait(20)
    driver.screenshots_dir = screenshots_dir
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
