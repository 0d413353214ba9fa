#!/usr/bin/env python3
"""The dead-letter console (`reconsume dlq serve`) in a real browser, against a real Pulsar with
real dead letters: headless Chromium from Debian's packages, driven by Debian's python3-selenium.

1. `reconsume demo` against Pulsar leaves dead letters of two causes (explicit and exhausted);
   `reconsume dlq list --json` says how many of each.
2. The console shows the total and the counts by cause; a filter narrows the list; one dead letter
   opens in full (properties, history, payload as text, JSON and hex); two are replayed after a
   confirmation that names how many, and the counts change — on the page and for the CLI.
3. Bad requests are a clear 4xx, never a 500; a read-only console offers no replay and refuses
   one; a console with a token refuses requests without it and lets the browser in with it; a
   console on a non-loopback address without a token does not start.

Screenshots of each step go to --screenshots (the README shows one).

Usage: console_browser_test.py --cli <reconsume binary> --screenshots <dir>
The broker: RECONSUME_PULSAR_URL (default pulsar://localhost:6650), as scripts/with-pulsar.sh sets.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

TIMEOUT = 30


def fail(message):
    print(f"console_browser_test: FAILED: {message}", file=sys.stderr)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)
    print(f"  ok: {message}")


def run(cli, *args, timeout=300):
    result = subprocess.run([cli, *args], capture_output=True, text=True, timeout=timeout)
    if result.returncode != 0:
        fail(f"reconsume {' '.join(args)} exited with {result.returncode}:\n{result.stderr}")
    return result.stdout


def dead_letters(cli, url, dlq, *filters):
    return json.loads(run(cli, "dlq", "list", "--url", url, "--json", *filters, dlq))


class Console:
    """A `reconsume dlq serve` process and the URL it serves."""

    def __init__(self, cli, url, dlq, *extra):
        self.process = subprocess.Popen(
            [cli, "dlq", "serve", "--url", url, "--listen", "127.0.0.1:0", *extra, dlq],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        match = re.search(r" at (http://\S+/)", line)
        if not match:
            self.process.kill()
            fail(f"dlq serve printed {line!r}; stderr: {self.process.stderr.read()}")
        self.url = match.group(1)

    def stop(self):
        self.process.terminate()
        code = self.process.wait(timeout=TIMEOUT)
        check(code == 0, f"dlq serve stops on SIGTERM with exit code 0 (got {code})")


def status_of(url, method="GET", body=None, headers=None):
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def browser(profile):
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--window-size=1400,1100",
                 f"--user-data-dir={profile}"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def text_of(driver, element_id):
    return driver.find_element(By.ID, element_id).text


def wait_for(driver, predicate, what):
    try:
        WebDriverWait(driver, TIMEOUT).until(lambda d: predicate(d))
    except Exception:  # selenium's TimeoutException, with the page's state in the message
        banner = driver.find_element(By.ID, "banner")
        fail(f"{what}: not within {TIMEOUT}s (banner: {banner.text!r}, "
             f"total: {text_of(driver, 'total')!r})")


def generation(driver):
    return int(driver.find_element(By.TAG_NAME, "body").get_attribute("data-generation") or 0)


def wait_refreshed(driver, before, what):
    """Waits until the page finished a refresh after `before` (its counts and list both)."""
    wait_for(driver, lambda d: generation(d) > before, what)


def chart_counts(driver, chart_id):
    counts = {}
    for row in driver.find_elements(By.CSS_SELECTOR, f"#{chart_id} .bar-row"):
        counts[row.get_attribute("data-label")] = int(
            row.find_element(By.CLASS_NAME, "bar-count").text)
    return counts


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    parser.add_argument("--screenshots", required=True)
    args = parser.parse_args()
    url = os.environ.get("RECONSUME_PULSAR_URL", "pulsar://localhost:6650")
    os.makedirs(args.screenshots, exist_ok=True)
    shot = lambda driver, name: driver.save_screenshot(os.path.join(args.screenshots, name))

    print("Dead letters from the demo on", url)
    out = run(args.cli, "demo", "--url", url, "--orders", "200", "--seed", "11",
              "--transient-rate", "0.5", "--permanent-rate", "0.05", "--levels", "50ms 50ms")
    match = re.search(r"\(in (persistent://\S+-DLQ)\)", out)
    if not match:
        fail(f"the demo named no dead-letter topic:\n{out}")
    dlq = match.group(1)
    everything = dead_letters(args.cli, url, dlq)
    explicit = [d for d in everything if d["cause"] == "explicit"]
    exhausted = [d for d in everything if d["cause"] == "exhausted"]
    check(len(explicit) >= 3 and len(exhausted) >= 1,
          f"{len(everything)} dead letters: {len(explicit)} explicit, {len(exhausted)} exhausted")

    console = Console(args.cli, url, dlq)
    with tempfile.TemporaryDirectory() as profile:
        driver = browser(profile)
        try:
            print("Overview:", console.url)
            driver.get(console.url)
            wait_for(driver, lambda d: d.find_element(By.TAG_NAME, "body")
                     .get_attribute("data-ready") == "true", "the page is ready")
            check(text_of(driver, "total") == str(len(everything)),
                  f"the total is {len(everything)}")
            causes = chart_counts(driver, "chart-cause")
            check(causes == {"explicit": len(explicit), "exhausted": len(exhausted)},
                  f"the chart by cause shows {causes}")
            check(len(driver.find_elements(By.CSS_SELECTOR, "#chart-age .bar-row")) > 0,
                  "the chart by age has its buckets")
            shot(driver, "01-overview.png")

            print("Filter by cause")
            Select(driver.find_element(By.ID, "filter-cause")).select_by_visible_text("explicit")
            before = generation(driver)
            driver.find_element(By.ID, "apply").click()
            wait_refreshed(driver, before, "the filtered page is shown")
            check(text_of(driver, "total") == str(len(explicit)), "the total follows the filter")
            rows = driver.find_elements(By.CSS_SELECTOR, "#rows tr")
            check(len(rows) == min(len(explicit), 50), f"{len(rows)} rows, all explicit")
            check(all("explicit" in row.text for row in rows), "every row says explicit")
            shot(driver, "02-filtered.png")

            print("Open one")
            first_id = rows[0].get_attribute("data-id")
            rows[0].find_element(By.CSS_SELECTOR, "td.id button").click()
            wait_for(driver, lambda d: d.find_element(By.ID, "detail").is_displayed(),
                     "the detail opens")
            check(first_id in text_of(driver, "detail-title"), f"the detail is of {first_id}")
            properties = text_of(driver, "detail-properties")
            check("DEAD_LETTER_CAUSE" in properties and "REAL_TOPIC" in properties,
                  "the properties are listed")
            check(len(driver.find_elements(By.CSS_SELECTOR, "#detail-history li")) >= 1,
                  "the history has its hops")
            check('"order"' in text_of(driver, "payload"), "the payload shows as text")
            driver.find_element(By.CSS_SELECTOR, "button.mode[data-mode=json]").click()
            check('"amount": ' in text_of(driver, "payload"), "the payload shows as JSON")
            driver.find_element(By.CSS_SELECTOR, "button.mode[data-mode=hex]").click()
            check(text_of(driver, "payload").startswith("000000  7b 22"),
                  "the payload shows as hex")
            shot(driver, "03-detail.png")
            driver.find_element(By.ID, "detail-close").click()

            print("Replay two")
            boxes = driver.find_elements(By.CSS_SELECTOR, "#rows input.select")
            chosen = [boxes[0].get_attribute("data-id"), boxes[1].get_attribute("data-id")]
            boxes[0].click()
            boxes[1].click()
            check(text_of(driver, "selected") == "2 selected", "two are selected")
            driver.find_element(By.ID, "replay").click()
            wait_for(driver, lambda d: d.find_element(By.ID, "confirm").is_displayed(),
                     "the confirmation opens")
            check("Replay 2 dead letters" in text_of(driver, "confirm-text"),
                  "the confirmation says how many: " + text_of(driver, "confirm-text"))
            shot(driver, "04-confirm.png")
            before = generation(driver)
            driver.find_element(By.ID, "confirm-yes").click()
            wait_refreshed(driver, before, "the page is shown again after the replay")
            check(text_of(driver, "total") == str(len(explicit) - 2), "the total drops by two")
            check("Replayed 2 of 2" in text_of(driver, "banner"), "the page says what was done")
            shot(driver, "05-replayed.png")
            remaining = dead_letters(args.cli, url, dlq, "--cause", "explicit")
            check(len(remaining) == len(explicit) - 2 and
                  not any(d["id"] in chosen for d in remaining),
                  "the CLI sees the two gone from the dead-letter topic")

            print("Bad requests")
            base = console.url.rstrip("/")
            for path, expected in (("/api/show?id=bogus", 400), ("/api/show?id=1:2:-1", 404),
                                   ("/api/list?cause=nope", 400), ("/api/list?limit=x", 400),
                                   ("/nope", 404), ("/api/nope", 404)):
                code, body = status_of(base + path)
                check(code == expected, f"GET {path} is {code} (expected {expected}): {body.strip()}")
            code, _ = status_of(base + "/api/purge", "POST", b'{"ids": ["1:2:-1"]}',
                                {"Content-Type": "application/json"})
            check(code == 403, f"a POST without the console's header is refused ({code})")
            code, _ = status_of(base + "/api/purge", "POST", b'{"ids": ["1:2:-1"]}',
                                {"Content-Type": "application/json", "X-Reconsume-Console": "1",
                                 "Origin": "http://evil.example"})
            check(code == 403, f"a POST from another origin is refused ({code})")
            code, _ = status_of(base + "/", headers={"Host": "evil.example"})
            check(code == 421, f"a request for another host name is refused ({code})")
        finally:
            driver.quit()
            console.stop()

    print("Read-only")
    readonly = Console(args.cli, url, dlq, "--read-only")
    with tempfile.TemporaryDirectory() as profile:
        driver = browser(profile)
        try:
            driver.get(readonly.url)
            wait_for(driver, lambda d: d.find_element(By.TAG_NAME, "body")
                     .get_attribute("data-ready") == "true", "the read-only page is ready")
            check(not driver.find_element(By.ID, "replay").is_displayed() and
                  not driver.find_element(By.ID, "purge").is_displayed(),
                  "no replay or purge is offered")
            code, _ = status_of(readonly.url + "api/purge", "POST", b'{"ids": ["1:2:-1"]}',
                                {"Content-Type": "application/json", "X-Reconsume-Console": "1"})
            check(code == 403, f"a purge is refused ({code})")
        finally:
            driver.quit()
            readonly.stop()

    print("Token")
    guarded = Console(args.cli, url, dlq, "--console-token", "s3cret")
    with tempfile.TemporaryDirectory() as profile:
        driver = browser(profile)
        try:
            code, _ = status_of(guarded.url + "api/config")
            check(code == 401, f"without the token: {code}")
            code, _ = status_of(guarded.url + "api/config",
                                headers={"Authorization": "Bearer s3cret"})
            check(code == 200, f"with the token as a bearer: {code}")
            driver.get(guarded.url + "?token=s3cret")
            wait_for(driver, lambda d: d.find_element(By.TAG_NAME, "body")
                     .get_attribute("data-ready") == "true", "the page opens with the token")
        finally:
            driver.quit()
            guarded.stop()
    refused = subprocess.run([args.cli, "dlq", "serve", "--url", url, "--listen", "0.0.0.0:0",
                              dlq], capture_output=True, text=True, timeout=TIMEOUT)
    check(refused.returncode == 2 and "--console-token" in refused.stderr,
          "a non-loopback console without a token does not start (exit 2, names the option)")
    print("console_browser_test: all good")


if __name__ == "__main__":
    main()
