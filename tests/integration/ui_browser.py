#!/usr/bin/env python3
"""destbench ui in a real browser: headless Chromium driven by Selenium (chromium-driver).

Usage: ui_browser.py URL DESTINATION CEILING_MB_S SCREENSHOTS

Opens the page at 1280x800 (a screenshot while it runs), types DESTINATION (a disk held to
CEILING_MB_S), picks the quick profile and starts a run; checks that the progress bar moves and a
second tab sees the run under way; waits for the answer: the time of a backup first, then the
"how long" table whose every cell is a duration, the verdict, the tiles and the chain, in that
order down the page; checks the sequential tile's figures against the disk's ceiling, and the
run's row in the history; screenshots at 1280x800 and at a phone's 390x844 (no sideways
scrolling there), each in light and dark mode (prefers-color-scheme, emulated), into SCREENSHOTS;
and that requests without the token or with a foreign Host get 403.
Prints one line per check; exits non-zero on the first failure.
"""

import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait


def check(ok, what):
    if not ok:
        raise AssertionError(what)
    print(f"ok: {what}", flush=True)


def status_of(url, host=None):
    req = urllib.request.Request(url, headers={"Host": host} if host else {})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def browser(width, height):
    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={width},{height}"):
        options.add_argument(arg)
    options.binary_location = "/usr/bin/chromium"
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = webdriver.ChromeService(executable_path="/usr/bin/chromedriver")
    return webdriver.Chrome(options=options, service=service)


def viewport(driver, width, height):
    """Sizes the window so that the page itself (not the window) is width x height."""
    driver.set_window_size(width, height)
    inner = driver.execute_script("return [window.innerWidth, window.innerHeight]")
    driver.set_window_size(2 * width - inner[0], 2 * height - inner[1])
    inner = driver.execute_script("return [window.innerWidth, window.innerHeight]")
    check(inner == [width, height], f"the page is {inner[0]}x{inner[1]}")


def watch_progress(driver, within):
    """The progress bar's values while the run goes, until the verdict tile shows."""
    seen = []
    end = time.time() + within
    while time.time() < end:
        if driver.find_elements(By.CSS_SELECTOR, "#glance [data-tile=verdict]"):
            return seen
        if driver.find_element(By.ID, "progress").is_displayed():
            value = float(driver.find_element(By.ID, "bar").get_attribute("value"))
            eta = driver.find_element(By.ID, "eta").text
            if not seen or seen[-1][0] != value:
                seen.append((value, eta))
        time.sleep(0.2)
    raise AssertionError(f"no verdict within {within} s; progress seen: {seen}")


def check_sequential_tile(driver, ceiling):
    """The SEQ1M-Q1T1 tile's read and write figures, as the page shows them, against the disk's
    ceiling: never above it by more than the throttle's burst lets a 0.5 s repetition gain
    (0.05 s of traffic: 1.11x), and not below half of it (the machine is shared while it runs)."""
    tile = driver.find_element(
        By.XPATH, "//div[@data-tile='figure'][h3[normalize-space()='SEQ1M-Q1T1']]")
    names = [e.text for e in tile.find_elements(By.TAG_NAME, "dt")]
    figures = [float(e.text) for e in tile.find_elements(By.TAG_NAME, "dd")]
    check(sorted(names) == ["read", "write"], f"the SEQ1M-Q1T1 tile shows {names}")
    for name, figure in zip(names, figures):
        check(0.5 * ceiling <= figure <= 1.12 * ceiling,
              f"SEQ1M-Q1T1 {name} on the page: {figure} MB/s on a disk held to {ceiling:g} MB/s")


# A cell of the "how long" table: "about 2 h 10 min", "at least 42 min", "about 4.5 min".
DURATION = re.compile(r"^(about|at least) (\d+(\.\d)? (s|min)|\d+ h \d\d min)$")


def check_time_answer(driver):
    """The answer's first sentence (a time, in large type) above its "how long" table (rows your
    data, 100 GB, 1 TB; a column per tool, each cell a duration, 1 TB's longer than 100 GB's),
    above the verdict, the tiles and the chain."""
    time_p = driver.find_element(By.CSS_SELECTOR, "#glance [data-answer=time] p.time")
    check(time_p.text.startswith("A first") and "your data here:" in time_p.text,
          "the time answer: " + time_p.text)
    size = float(time_p.value_of_css_property("font-size").rstrip("px"))
    body = float(driver.execute_script(
        "return parseFloat(getComputedStyle(document.body).fontSize)"))
    check(size >= 1.4 * body, f"the time answer in large type ({size:g} px, the text {body:g} px)")
    table = driver.find_element(By.CSS_SELECTOR, "#glance table.how-long")
    rows = [r.text for r in table.find_elements(By.CSS_SELECTOR, "th[scope=row]")]
    check(len(rows) == 3 and rows[0].startswith("your data") and rows[1:] == ["100 GB", "1 TB"],
          f"the 'how long' table's rows: {rows}")
    tools = [t.text for t in table.find_elements(By.CSS_SELECTOR, "th[scope=col]")]
    cells = table.find_elements(By.CSS_SELECTOR, "td")
    texts = [c.text for c in cells]
    check(tools and len(cells) == 3 * len(tools) and all(DURATION.match(t) for t in texts),
          f"every cell a duration, a column per tool {tools}: {texts}")
    seconds = [float(c.get_attribute("data-seconds")) for c in cells]
    n = len(tools)
    check(all(seconds[2 * n + i] > seconds[n + i] > 0 for i in range(n)),
          f"1 TB takes longer than 100 GB: {seconds}")
    order = ["#glance p.time", "#glance table.how-long", "#glance [data-tile=verdict]",
             "#glance [data-tile=figure]", "#glance [data-chart=chain]"]
    tops = [driver.find_element(By.CSS_SELECTOR, o).location["y"] for o in order]
    check(tops == sorted(tops), f"the time, its table, the verdict, the tiles, the chain: {tops}")


def colour_scheme(driver, scheme):
    """Emulates prefers-color-scheme, and checks the page follows it: a light or a dark body."""
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {
        "features": [{"name": "prefers-color-scheme", "value": scheme}]})
    rgb = driver.execute_script("return getComputedStyle(document.body).backgroundColor")
    red, green, blue = (int(v) for v in re.findall(r"\d+", rgb)[:3])
    light = (0.2126 * red + 0.7152 * green + 0.0722 * blue) / 255
    check(light > 0.8 if scheme == "light" else light < 0.2,
          f"{scheme} mode: the page's background is {rgb}")


def check_phone_width(driver):
    """Nothing wider than a phone's screen: tables scroll inside their own box."""
    time.sleep(0.5)
    fits = driver.execute_script("return [document.body.scrollWidth, window.innerWidth]")
    wide = driver.execute_script(
        "return document.documentElement.scrollWidth - document.documentElement.clientWidth")
    culprits = driver.execute_script("""
        const w = document.documentElement.clientWidth;
        return [...document.querySelectorAll('body *')]
          .filter((e) => e.getBoundingClientRect().right > w + 1
                         && !e.closest('.scroll, table.how-long'))
          .slice(0, 5).map((e) => e.tagName + '#' + e.id + '.' + e.className);""")
    check(fits[0] <= fits[1] and wide <= 1,
          f"no sideways scrolling at a phone's width (body {fits[0]} px in {fits[1]} px, "
          f"{wide} px too wide: {culprits})")


def screenshot(driver, path):
    """The page from its top: the header, then the answer."""
    driver.execute_script("window.scrollTo(0, 0)")
    time.sleep(0.3)
    driver.save_screenshot(path)
    print(f"saved {path}", flush=True)


def main():
    url, destination, ceiling, screenshots = sys.argv[1:5]
    ceiling = float(ceiling)
    parts = urllib.parse.urlsplit(url)
    base = f"{parts.scheme}://{parts.netloc}"
    check(status_of(base + "/") == 403, "the page without the token: 403")
    check(status_of(base + "/api/status") == 403, "the API without the token: 403")
    check(status_of(url, host=f"rebound.example:{parts.port}") == 403, "a foreign Host: 403")
    check(status_of(url) == 200, "the page with the token: 200")

    driver = browser(1280, 800)
    try:
        wait = WebDriverWait(driver, 30)
        driver.get(url)
        viewport(driver, 1280, 800)
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#destinations li"))
        volumes = driver.find_elements(By.CSS_SELECTOR, "#destinations input[name=destination]")
        check(True, f"the destinations list is shown ({len(volumes)} mounted volumes)")
        folder = driver.find_element(By.ID, "folder")
        folder.send_keys(destination)
        driver.execute_script("document.getElementById('folder').dispatchEvent(new Event('change'))")
        wait.until(lambda d: len(Select(d.find_element(By.ID, "profile")).options) == 3)
        profile = Select(driver.find_element(By.ID, "profile"))
        profile.select_by_value("quick")
        time.sleep(0.5)  # the list asked for on typing the folder may land after the choice
        profile = Select(driver.find_element(By.ID, "profile"))
        check(profile.first_selected_option.get_attribute("value") == "quick", "quick is chosen")
        check("about" in profile.first_selected_option.text, "the profile shows its planned time: "
              + profile.first_selected_option.text)
        driver.find_element(By.ID, "run").click()
        wait.until(lambda d: d.find_element(By.ID, "progress").is_displayed())

        wait.until(lambda d: float(d.find_element(By.ID, "bar").get_attribute("value")) > 0.1)
        driver.save_screenshot(f"{screenshots}/ui-running-1280x800.png")
        first = driver.current_window_handle
        driver.switch_to.new_window("tab")
        driver.get(url)
        wait.until(lambda d: d.find_element(By.ID, "progress").is_displayed())
        check(not driver.find_element(By.ID, "run").is_enabled(),
              "a second tab sees the run under way (Start disabled, progress shown)")
        driver.close()
        driver.switch_to.window(first)

        seen = watch_progress(driver, 180)
        values = [v for v, _ in seen]
        # A step that teaches a slower rate may move the bar back a little, never far.
        steady = all(b > a - 0.1 for a, b in zip(values, values[1:]))
        check(len(values) >= 3 and steady and values[-1] > values[0] + 0.5,
              f"the progress moved: {seen}")
        check_time_answer(driver)
        verdict = driver.find_element(By.CSS_SELECTOR, "#glance [data-tile=verdict]").text
        check(verdict.startswith("Verdict"), "the verdict tile: " + verdict.replace("\n", " ")[:100])
        figures = driver.find_elements(By.CSS_SELECTOR, "#glance [data-tile=figure]")
        check(len(figures) >= 4, f"{len(figures)} headline tiles")
        check_sequential_tile(driver, ceiling)
        run_id = driver.find_element(By.ID, "answer-of").text.split()[1].rstrip(",")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, f"#history-here tr[data-run='{run_id}']"))
        check(True, f"run {run_id} is in this destination's history")
        driver.switch_to.frame(driver.find_element(By.ID, "report"))
        wait.until(lambda d: d.find_elements(By.TAG_NAME, "h1"))
        check(driver.find_elements(By.CSS_SELECTOR, "[data-chart]"), "the report's charts in the frame")
        driver.switch_to.default_content()

        for scheme in ("light", "dark"):
            colour_scheme(driver, scheme)
            viewport(driver, 1280, 800)
            screenshot(driver, f"{screenshots}/ui-1280x800-{scheme}.png")
            viewport(driver, 390, 844)
            check_phone_width(driver)
            screenshot(driver, f"{screenshots}/ui-390x844-{scheme}.png")
        errors = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        check(not errors, f"nothing logged as an error (CSP included): {errors}")
    finally:
        driver.quit()


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(f"FAILED: {e}", flush=True)
        sys.exit(1)
