"""Browser tests of the store's web page: a real headless Chromium (Debian's chromium and chromedriver, driven by
Selenium) against real `quire serve` processes (debug build) on free loopback ports, each with a private store,
root and coordination directory. Run by run.sh (which `make test` calls); prints one closing line,
`browser: N passed, N failed`.

Every wait is bounded (a deadline and a poll), and the whole run has a time limit (run.sh). After each test the
browser's console log must hold no error (`SEVERE`), except the refusals a test provokes on purpose.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.select import Select

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIXTURES = os.path.join(REPO, "Fixtures")
# The debug build by default; `make compare-web` points this at a release build to measure the first paint.
QUIRE = os.environ.get("QUIRE_BROWSER_BINARY") or os.path.join(REPO, ".build", "debug", "quire")
SCREENSHOTS = os.path.join(REPO, ".build", "screenshots")
TOKEN = "browser-test-token"
FIRST_PAINT_DOCUMENTS = int(os.environ.get("QUIRE_FIRST_PAINT_DOCUMENTS", "1000"))
# The test asserts a bound that only a regression breaks (a list that takes seconds: per-row layout, thumbnails
# loaded eagerly), not the 1 s target itself, which is a speed figure: `make compare-web` measures it on a release
# build with nothing else running and checks it (FIRST_PAINT_BOUND_MS=1000). On a busy 2-core machine one of
# three paints of the debug build was seen at 1.08 s while the others took 0.66-0.89 s, and with two release
# builds beside it 2.1-2.5 s (the list rendered by 0.5-0.8 s, Chromium's paint starved of CPU).
FIRST_PAINT_BOUND_MS = float(os.environ.get("FIRST_PAINT_BOUND_MS", "5000"))


class Failure(Exception):
    pass


def wait_until(predicate, timeout, what, interval=0.05):
    """Polls `predicate` until it returns a true value (returned) or `timeout` seconds pass (Failure)."""
    deadline = time.monotonic() + timeout
    last_error = None
    while True:
        try:
            value = predicate()
            if value:
                return value
        except (StaleElementReferenceException, WebDriverException) as error:
            last_error = error
        if time.monotonic() >= deadline:
            detail = f" (last error: {last_error.__class__.__name__})" if last_error else ""
            raise Failure(f"timed out after {timeout} s waiting for {what}{detail}")
        time.sleep(interval)


def check(condition, message):
    if not condition:
        raise Failure(message)


class Server:
    """A `quire serve` on a free loopback port, with a private store and root."""

    def __init__(self, work, name, token=None):
        self.directory = os.path.join(work, name)
        self.root = os.path.join(self.directory, "root")
        self.store = os.path.join(self.directory, "store")
        os.makedirs(self.root)
        os.makedirs(self.store)
        self.token = token
        self.start(port=0)

    def start(self, port):
        arguments = [QUIRE, "serve", "--port", str(port), "--store", self.store, "--root", self.root]
        if self.token:
            arguments += ["--token", self.token]
        self.output = open(os.path.join(self.directory, "serve.out"), "w+")
        self.log = open(os.path.join(self.directory, "serve.log"), "a+")
        self.process = subprocess.Popen(arguments, stdout=self.output, stderr=self.log, stdin=subprocess.DEVNULL)

        def listening():
            if self.process.poll() is not None:
                self.log.seek(0)
                raise Failure(f"quire serve exited: {self.log.read()[-2000:]}")
            self.output.seek(0)
            for line in self.output.read().splitlines():
                if line.startswith("quire serve: listening on "):
                    return line.split("listening on ", 1)[1].strip()
            return None

        self.url = wait_until(listening, 30, "quire serve to listen")

    def restart(self):
        """Stops the service (gracefully: its event streams end) and starts it again on the same port."""
        port = int(self.url.rsplit(":", 1)[1])
        self.stop()
        self.start(port)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)

    def request(self, method, path, body=None, headers=None, token=True):
        headers = dict(headers or {})
        if token and self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(self.url + path, data=body, method=method, headers=headers)
        with urllib.request.urlopen(request, timeout=20) as response:
            text = response.read()
            return json.loads(text) if text and "json" in response.headers.get("Content-Type", "") else None

    def upload(self, fixture):
        with open(os.path.join(FIXTURES, fixture), "rb") as file:
            return self.request("POST", "/documents", file.read(), {"Content-Type": "application/pdf"})

    def register(self, fixture, name):
        path = os.path.join(self.root, name)
        shutil.copyfile(os.path.join(FIXTURES, fixture), path)
        body = json.dumps({"files": [path]}).encode()
        return self.request("POST", "/documents", body, {"Content-Type": "application/json"}), path


class BrowserTests:
    def __init__(self, work):
        self.work = work
        self.server = Server(work, "open")
        self.uploaded = self.server.upload("metadata.pdf")
        self.registered, self.registered_path = self.server.register("one-page.pdf", "registered.pdf")
        self.conflicted, self.conflicted_path = self.server.register("one-page.pdf", "conflicted.pdf")
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000",
                         "--disable-gpu", "--no-first-run", "--disable-extensions",
                         "--disable-background-networking", "--disable-component-update", "--disable-sync"]:
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        service = Service(executable_path="/usr/bin/chromedriver", log_output=os.path.join(work, "chromedriver.log"))
        self.driver = webdriver.Chrome(service=service, options=options)
        self.driver.set_page_load_timeout(30)
        self.driver.set_script_timeout(30)
        self.allowed_errors = []  # substrings of console errors a test provokes on purpose
        self.servers = [self.server]

    def close(self):
        try:
            self.driver.quit()
        finally:
            for server in self.servers:
                server.stop()

    # MARK: helpers

    def js(self, script, *arguments):
        return self.driver.execute_script(script, *arguments)

    def open_page(self, server=None):
        self.driver.get((server or self.server).url + "/")
        wait_until(lambda: self.js("return document.getElementById('connection').dataset.state") == "live",
                   10, "the change feed to connect")

    def row(self, document_id):
        rows = self.driver.find_elements(By.CSS_SELECTOR, f'#document-rows tr[data-id="{document_id}"]')
        return rows[0] if rows else None

    def screenshot(self, name):
        os.makedirs(SCREENSHOTS, exist_ok=True)
        path = os.path.join(SCREENSHOTS, name)
        self.driver.save_screenshot(path)
        return path

    def console_errors(self):
        errors = []
        for entry in self.driver.get_log("browser"):
            if entry["level"] != "SEVERE":
                continue
            if any(allowed in entry["message"] for allowed in self.allowed_errors):
                continue
            errors.append(entry["message"])
        self.allowed_errors = []
        return errors

    # MARK: tests

    def test_list_shows_uploaded_documents(self):
        self.open_page()
        for document in [self.uploaded, self.registered, self.conflicted]:
            wait_until(lambda: self.row(document["id"]), 5, f"the row of {document['id']}")
        row = self.row(self.uploaded["id"])
        check(self.uploaded["metadata"]["title"] in row.text, f"the row shows the title: {row.text!r}")
        check(row.find_element(By.CSS_SELECTOR, ".state").text == "clean", "the row shows the state")
        check(row.find_element(By.CSS_SELECTOR, ".pages").text == str(self.uploaded["pageCount"]),
              "the row shows the page count")
        count = self.driver.find_element(By.ID, "document-count").text
        check(count == "3 documents", f"the count says 3 documents: {count!r}")
        # The caption says the order the rows have: the service's, oldest first (the order they were made in).
        caption = self.driver.find_element(By.CSS_SELECTOR, "#document-table caption").get_attribute("textContent")
        shown = self.js("return [...document.querySelectorAll('#document-rows tr')].map((row) => row.dataset.id)")
        made = [document["id"] for document in [self.uploaded, self.registered, self.conflicted]]
        listed = [summary["id"] for summary in self.server.request("GET", "/documents")["documents"]]
        check("oldest first" in caption and shown == listed == made,
              f"the caption ({caption!r}) and the rows ({shown}) agree with the service ({listed}): {made}")
        check(not self.driver.find_element(By.ID, "more-button").is_displayed(), "no more button for one page")
        # The state filter asks the service for that state: the rows of other states go.
        state_filter = Select(self.driver.find_element(By.ID, "state-filter"))
        state_filter.select_by_value("dirty")
        wait_until(lambda: self.row(self.uploaded["id"]) is None, 5, "the filter to drop clean rows")
        count = self.driver.find_element(By.ID, "document-count").text
        check(count == "0 documents in state dirty", f"the count says so: {count!r}")
        empty = self.driver.find_element(By.ID, "empty-list")
        check(empty.is_displayed() and empty.text == "No documents in state dirty.", f"and the page: {empty.text!r}")
        state_filter.select_by_value("")
        wait_until(lambda: self.row(self.uploaded["id"]), 5, "the filter to show every row")
        check(not empty.is_displayed(), "the empty message goes")

    def test_thumbnail_loads(self):
        self.open_page()
        image_width = (
            "const image = document.querySelector(`#document-rows tr[data-id='${arguments[0]}'] img`);"
            "return image && image.complete ? image.naturalWidth : 0;")
        width = wait_until(lambda: self.js(image_width, self.registered["id"]), 15, "the thumbnail to load")
        check(width > 0, "the thumbnail has a natural width")
        source = self.js(f"return document.querySelector(`#document-rows tr[data-id='{self.registered['id']}'] img`).src")
        check("/pages/1/image?dpi=" in source, f"the thumbnail is the service's render of page 1: {source}")

    def test_an_encrypted_document_shows_locked_not_a_broken_image(self):
        server = Server(self.work, "locked")
        self.servers.append(server)
        with open(os.path.join(FIXTURES, "encrypted-aes256.pdf"), "rb") as file:
            locked = server.request("POST", "/documents", file.read(),
                                    {"Content-Type": "application/pdf", "X-Document-Password": "userpw"})
        plain = server.upload("one-page.pdf")
        self.allowed_errors = ["401"]  # the thumbnail's request, which the service refuses without the password
        self.open_page(server)
        cell = f"#document-rows tr[data-id='{locked['id']}'] td.thumbnail"
        wait_until(lambda: self.js(f"return document.querySelector(`{cell}`)?.classList.contains('locked')"), 15,
                   "the locked placeholder in the encrypted document's thumbnail")
        check(self.js(f"return getComputedStyle(document.querySelector(`{cell} img`)).display") == "none",
              "no broken image: the failed image is not shown")
        placeholder = self.js(f"return getComputedStyle(document.querySelector(`{cell}`), '::before').content")
        check(placeholder == '"locked"', f"the placeholder says locked: {placeholder}")
        title = self.js(f"return document.querySelector(`{cell}`).title")
        check(title.startswith("Encrypted"), f"the placeholder says why: {title!r}")
        image_width = (f"const image = document.querySelector(`#document-rows tr[data-id='{plain['id']}'] img`);"
                       "return image && image.complete ? image.naturalWidth : 0;")
        wait_until(lambda: self.js(image_width), 15, "the readable document's thumbnail beside it")
        self.screenshot("locked.png")

    def test_external_copy_updates_the_row_within_two_seconds(self):
        self.open_page()
        document_id = self.registered["id"]
        wait_until(lambda: self.row(document_id), 5, "the row")
        self.js("window.quireMarker = 'no reload'")
        before = self.row(document_id).get_attribute("data-etag")
        started = time.monotonic()
        subprocess.run(["cp", os.path.join(FIXTURES, "mixed-sizes.pdf"), self.registered_path], check=True)
        feed_item = f"#feed li[data-document='{document_id}'][data-type='changed']"
        wait_until(lambda: self.driver.find_elements(By.CSS_SELECTOR, feed_item), 2, "the change in the feed")
        wait_until(lambda: self.row(document_id).get_attribute("data-etag") != before, 2, "the row's new tag")
        elapsed = time.monotonic() - started
        pages = self.row(document_id).find_element(By.CSS_SELECTOR, ".pages").text
        check(pages == "4", f"the row shows the new page count (mixed-sizes.pdf has 4 pages): {pages!r}")
        check(elapsed < 2, f"the row changed within 2 s ({elapsed:.2f} s)")
        check(self.js("return window.quireMarker") == "no reload", "the page was not reloaded")
        print(f"    external cp → feed and row: {elapsed * 1000:.0f} ms", flush=True)

    def test_conflict_shows_both_sides_and_reload_resolves_it(self):
        document_id = self.conflicted["id"]
        self.open_page()
        self.driver.find_element(By.CSS_SELECTOR, f"#document-rows tr[data-id='{document_id}'] a").click()
        wait_until(lambda: self.js("return document.getElementById('viewer').dataset.state") == "clean", 10,
                   "the document view")
        self.server.request("PATCH", f"/documents/{document_id}/metadata",
                            json.dumps({"title": "Edited in the store"}).encode(),
                            {"Content-Type": "application/merge-patch+json"})
        subprocess.run(["cp", os.path.join(FIXTURES, "mixed-sizes.pdf"), self.conflicted_path], check=True)
        conflict = self.driver.find_element(By.ID, "conflict")
        wait_until(lambda: conflict.is_displayed(), 5, "the conflict to show")
        store_side = self.driver.find_element(By.ID, "conflict-store").text
        disk_side = self.driver.find_element(By.ID, "conflict-disk").text
        check("Edited in the store" in store_side, f"the store's side shows the edit: {store_side!r}")
        check(self.conflicted_path in disk_side, f"the disk's side names the file: {disk_side!r}")
        wait_until(lambda: "2.9 KB" in self.driver.find_element(By.ID, "conflict-disk").text, 5,
                   "the disk's side to show the new file's size (mixed-sizes.pdf, 2,858 bytes)")
        check("1.4 KB" in store_side, f"the store's side has its version's size (one-page.pdf): {store_side!r}")
        buttons = [button.text for button in conflict.find_elements(By.CSS_SELECTOR, "[data-resolution]")]
        check(buttons == ["Reload", "Save", "Close"], f"the three resolutions: {buttons}")
        self.screenshot("conflict.png")
        conflict.find_element(By.CSS_SELECTOR, "[data-resolution='reload']").click()
        wait_until(lambda: not conflict.is_displayed(), 5, "the conflict to go")
        wait_until(lambda: self.js("return document.getElementById('viewer').dataset.state") == "clean", 5,
                   "the document to be clean")
        wait_until(lambda: self.row(document_id).get_attribute("data-state") == "clean", 5, "the row to be clean")
        page_of = self.driver.find_element(By.ID, "page-of").text
        check(page_of == "of 4", f"the reloaded document has the disk's 4 pages: {page_of!r}")
        wait_until(lambda: self.driver.find_elements(
            By.CSS_SELECTOR, f"#feed li[data-document='{document_id}'][data-type='resolved']"), 5,
            "the resolution in the feed")

    def test_document_view_pages_and_text(self):
        document_id = self.registered["id"]  # four pages since the external copy
        self.driver.get(f"{self.server.url}/#/documents/{document_id}")
        page_image = "const image = document.getElementById('page-image'); return image.complete ? image.naturalWidth : 0;"
        wait_until(lambda: self.js(page_image), 10, "page 1's image")
        self.driver.find_element(By.ID, "page-next").click()
        wait_until(lambda: self.driver.find_element(By.ID, "page-number").get_attribute("value") == "2", 2,
                   "page 2")
        wait_until(lambda: "/pages/2/image" in self.js("return document.getElementById('page-image').src")
                   and self.js(page_image), 10, "page 2's image")
        self.driver.find_element(By.CSS_SELECTOR, "#page-text-details summary").click()
        wait_until(lambda: self.driver.find_element(By.ID, "page-text").text not in ("", "Loading…"), 10,
                   "the page's text")
        files = self.driver.find_element(By.ID, "files").text
        check(self.registered_path in files, f"the files show the path: {files!r}")
        # The keyboard pages too.
        self.driver.find_element(By.ID, "page-next").send_keys(Keys.PAGE_UP)
        wait_until(lambda: self.driver.find_element(By.ID, "page-number").get_attribute("value") == "1", 2,
                   "page 1 by the keyboard")

    def test_a_word_typed_in_the_search_box_opens_its_page(self):
        server = Server(self.work, "search")  # a store of its own: the other tests count the shared one's rows
        self.servers.append(server)
        uploaded = server.upload("hundred-pages.pdf")  # page p says "elit {p*1000+i}" on its lines
        wait_until(lambda: any(hit["document"] == uploaded["id"] and hit["page"] == 42
                               for hit in server.request("GET", "/search?q=42017")["results"]),
                   30, "the index to hold the uploaded document")
        self.open_page(server)
        box = self.driver.find_element(By.ID, "search-input")
        box.send_keys("42017")
        box.send_keys(Keys.ENTER)
        hit = wait_until(lambda: self.driver.find_elements(By.CSS_SELECTOR, "#search-results a.search-hit"), 10,
                         "a search result")[0]
        check("page 42" in hit.text, f"the result names page 42: {hit.text!r}")
        check(self.js("return arguments[0].querySelector('mark').textContent", hit) == "42017",
              "the word is marked in the snippet")
        hit.click()
        wait_until(lambda: self.driver.find_element(By.ID, "page-number").get_attribute("value") == "42", 10,
                   "the document open at page 42")
        wait_until(lambda: "/pages/42/image" in self.js("return document.getElementById('page-image').src"), 10,
                   "page 42's image")
        self.screenshot("search.png")
        check(self.driver.find_element(By.ID, "viewer-title").text == "Hundred Pages",
              "the document that has the word is open")

    def test_upload_by_file_input(self):
        self.open_page()
        before = len(self.driver.find_elements(By.CSS_SELECTOR, "#document-rows tr"))
        self.driver.find_element(By.ID, "upload-input").send_keys(os.path.join(FIXTURES, "page-labels.pdf"))
        wait_until(lambda: len(self.driver.find_elements(By.CSS_SELECTOR, "#document-rows tr")) == before + 1, 10,
                   "the uploaded document's row")
        notice = self.driver.find_element(By.ID, "notice-text").text
        check("Uploaded “page-labels.pdf”" in notice, f"the page says so: {notice!r}")

    def test_upload_by_drag_and_drop(self):
        self.open_page()
        before = len(self.driver.find_elements(By.CSS_SELECTOR, "#document-rows tr"))
        # A drop as the browser delivers one: a DataTransfer holding a PDF file (the bytes of an upload).
        self.driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            fetch(`/documents/${arguments[0]}/content`).then((response) => response.blob()).then((blob) => {
                const transfer = new DataTransfer();
                transfer.items.add(new File([blob], "dropped.pdf", { type: "application/pdf" }));
                document.body.dispatchEvent(new DragEvent("dragenter", { dataTransfer: transfer, bubbles: true }));
                document.body.dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, bubbles: true,
                                                                   cancelable: true }));
                done();
            });""", self.registered["id"])
        wait_until(lambda: len(self.driver.find_elements(By.CSS_SELECTOR, "#document-rows tr")) == before + 1, 10,
                   "the dropped document's row")
        check(self.driver.find_element(By.ID, "drop-overlay").get_attribute("hidden") is not None,
              "the drop overlay is gone")

    def test_delete_asks_first(self):
        document_id = self.uploaded["id"]
        self.driver.get(f"{self.server.url}/#/documents/{document_id}")
        wait_until(lambda: self.js("return document.getElementById('viewer').dataset.etag"), 10, "the document view")
        self.driver.find_element(By.ID, "delete-button").click()
        dialog = self.driver.find_element(By.ID, "confirm-dialog")
        wait_until(lambda: dialog.is_displayed(), 2, "the confirmation")
        dialog.find_element(By.CSS_SELECTOR, "button[value='cancel']").click()
        wait_until(lambda: not dialog.is_displayed(), 2, "the confirmation to close")
        check(self.row(document_id) is not None, "kept when the person says no")
        self.driver.find_element(By.ID, "delete-button").click()
        wait_until(lambda: dialog.is_displayed(), 2, "the confirmation")
        self.driver.find_element(By.ID, "confirm-delete").click()
        wait_until(lambda: self.row(document_id) is None, 5, "the row to go")
        check(self.driver.find_element(By.ID, "viewer").get_attribute("hidden") is not None, "the view closes")

    def test_readme_screenshot(self):
        self.open_page()
        self.driver.find_element(By.CSS_SELECTOR, f"#document-rows tr[data-id='{self.registered['id']}'] a").click()
        page_image = "const image = document.getElementById('page-image'); return image.complete ? image.naturalWidth : 0;"
        wait_until(lambda: self.js(page_image), 10, "the page image")
        all_loaded = ("return [...document.querySelectorAll('#document-rows img')]"
                      ".every((image) => image.complete && image.naturalWidth > 0)")
        wait_until(lambda: self.js(all_loaded), 15, "every thumbnail")
        path = self.screenshot("store.png")
        if os.environ.get("QUIRE_UPDATE_SCREENSHOT"):
            shutil.copyfile(path, os.path.join(REPO, "Docs", "screenshot.png"))

    def test_with_a_token_a_change_without_it_is_refused_and_the_page_says_so(self):
        server = Server(self.work, "token", token=TOKEN)
        self.servers.append(server)
        first = server.upload("one-page.pdf")
        second = server.upload("metadata.pdf")
        self.open_page(server)  # the page and the reads need no token
        wait_until(lambda: self.row(first["id"]), 5, "the row")
        self.allowed_errors = [f"{server.url}/documents/{first['id']} - Failed to load resource: "
                               "the server responded with a status of 401"]
        self.driver.find_element(By.CSS_SELECTOR, f"#document-rows tr[data-id='{first['id']}'] a").click()
        wait_until(lambda: self.js("return document.getElementById('viewer').dataset.etag"), 10, "the document view")
        self.driver.find_element(By.ID, "delete-button").click()
        self.driver.find_element(By.ID, "confirm-delete").click()
        token_dialog = self.driver.find_element(By.ID, "token-dialog")
        wait_until(lambda: token_dialog.is_displayed(), 5, "the page to ask for the token")
        reason = self.driver.find_element(By.ID, "token-reason").text
        check("refused" in reason and "token" in reason, f"the dialog says why: {reason!r}")
        token_dialog.find_element(By.CSS_SELECTOR, "button[value='cancel']").click()
        notice = self.driver.find_element(By.ID, "notice-text")
        wait_until(lambda: "Refused" in notice.text and "token" in notice.text, 5, "the page to say it was refused")
        check(self.row(first["id"]) is not None, "the document is still there")
        self.screenshot("refused.png")
        # Once the token is typed, it is kept for the tab: the next change does not ask.
        self.driver.find_element(By.ID, "delete-button").click()
        self.driver.find_element(By.ID, "confirm-delete").click()
        wait_until(lambda: token_dialog.is_displayed(), 5, "the page to ask for the token")
        self.driver.find_element(By.ID, "token-input").send_keys(TOKEN)
        self.driver.find_element(By.ID, "token-save").click()
        wait_until(lambda: self.row(first["id"]) is None, 5, "the deletion with the token")
        check(self.js("return sessionStorage.getItem('quire.token')") == TOKEN, "the token is kept for the tab")
        self.driver.get(f"{server.url}/#/documents/{second['id']}")
        wait_until(lambda: self.js("return document.getElementById('viewer').dataset.etag"), 10, "the document view")
        self.driver.find_element(By.ID, "delete-button").click()
        self.driver.find_element(By.ID, "confirm-delete").click()
        wait_until(lambda: self.row(second["id"]) is None, 5, "a deletion without asking again")
        check(not token_dialog.is_displayed(), "the page did not ask again")
        # The refusal is in the browser's log (which shows the log is read at all); nothing else is.
        errors = [entry["message"] for entry in self.driver.get_log("browser") if entry["level"] == "SEVERE"]
        refusals = [message for message in errors if self.allowed_errors[0] in message]
        check(len(refusals) == 2, f"the browser logged the two refusals (each before the token): {errors}")
        others = [message for message in errors if message not in refusals]
        check(not others, "console errors:\n      " + "\n      ".join(others))

    def test_the_feed_resumes_after_a_dropped_connection(self):
        server = Server(self.work, "resume")
        self.servers.append(server)
        document, path = server.register("one-page.pdf", "resumed.pdf")
        self.open_page(server)
        wait_until(lambda: self.row(document["id"]), 5, "the row")
        self.js("window.quireMarker = 'no reload'")
        port = server.url.rsplit(":", 1)[1]
        # While the service is down, the page cannot connect: the browser logs each refused attempt.
        self.allowed_errors = [f"127.0.0.1:{port}/events - Failed to load resource: net::ERR_CONNECTION_REFUSED"]
        server.stop()
        state = "return document.getElementById('connection').dataset.state"
        wait_until(lambda: self.js(state) == "reconnecting", 5, "the page to notice the dropped connection")
        subprocess.run(["cp", os.path.join(FIXTURES, "mixed-sizes.pdf"), path], check=True)
        server.restart()  # records the change made while it was down, as an event after the page's last one
        wait_until(lambda: self.js(state) == "live", 15, "the page to reconnect")
        wait_until(lambda: self.driver.find_elements(
            By.CSS_SELECTOR, f"#feed li[data-document='{document['id']}'][data-type='changed']"), 5,
            "the change made while disconnected in the feed")
        wait_until(lambda: self.row(document["id"]).find_element(By.CSS_SELECTOR, ".pages").text == "4", 5,
                   "the row to show the new version")
        check(self.js("return window.quireMarker") == "no reload", "the page was not reloaded")

    def test_more_than_a_page_shows_100_then_the_rest_and_the_state_filter_asks_the_service(self):
        server = Server(self.work, "paged")
        self.servers.append(server)
        with open(os.path.join(FIXTURES, "one-page.pdf"), "rb") as file:
            template = file.read()
        bodies = (template + f"\n% paged {index}\n".encode() for index in range(130))
        with ThreadPoolExecutor(max_workers=4) as pool:
            list(pool.map(lambda body: server.request("POST", "/documents", body, {"Content-Type": "application/pdf"}),
                          bodies))
        # And a registered file, which another process changes later: the last document.
        late, late_path = server.register("one-page.pdf", "late.pdf")
        listed = [summary["id"] for summary in server.request("GET", "/documents?limit=1000")["documents"]]
        check(len(listed) == 131 and listed[-1] == late["id"], f"the store has 131 documents ({len(listed)})")
        # Every tenth dirty, most of them beyond the first page.
        dirty = listed[5::10]
        for document_id in dirty:
            server.request("PATCH", f"/documents/{document_id}/metadata", json.dumps({"title": "Edited"}).encode(),
                           {"Content-Type": "application/merge-patch+json"})
        shown_ids = "return [...document.querySelectorAll('#document-rows tr')].map((row) => row.dataset.id)"
        list_reads = ("return performance.getEntriesByType('resource').map((entry) => entry.name)"
                      ".filter((name) => name.includes('/documents?'))")
        after_two_frames = ("const done = arguments[arguments.length - 1];"
                            "requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 0)));")

        # The first page only, and nothing more read while the end of the list is out of sight.
        self.open_page(server)
        wait_until(lambda: len(self.js(shown_ids)) == 100, 10, "the first 100 rows")
        self.driver.execute_async_script(after_two_frames)
        check(self.js(shown_ids) == listed[:100], "the first page's rows, oldest first")
        # (The replayed recent events read the first page again: never a page after it.)
        reads = self.js(list_reads)
        check(reads and all("limit=100" in read and "cursor=" not in read for read in reads),
              f"the first page read, no other: {reads}")
        count = self.driver.find_element(By.ID, "document-count").text
        check(count == "100 documents shown; more follow", f"the count says more follow: {count!r}")
        more = self.driver.find_element(By.ID, "more-button")
        check(more.is_displayed(), "a button shows more")
        # The button reads the rest (clicked where it is: scrolling it into view would read the rest by itself).
        self.js("arguments[0].click()", more)
        wait_until(lambda: len(self.js(shown_ids)) == 131, 10, "the rest after the button")
        check(self.js(shown_ids) == listed, "every document once, in the service's order")
        wait_until(lambda: self.driver.find_element(By.ID, "document-count").text == "131 documents", 2, "the count")
        check(not more.is_displayed(), "no button once every document is shown")
        after = [read for read in self.js(list_reads) if "cursor=" in read]
        check(len(after) == 1 and "limit=100" in after[0], f"one read after the first page: {after}")
        # Scrolling to the end of the list reads the rest too.
        self.open_page(server)
        wait_until(lambda: len(self.js(shown_ids)) == 100, 10, "the first 100 rows again")
        self.js("window.scrollTo(0, document.body.scrollHeight)")
        wait_until(lambda: len(self.js(shown_ids)) == 131, 10, "the rest after scrolling")
        check(self.js(shown_ids) == listed, "every document once, in the service's order")
        # A change to a document beyond the first page updates its row (the list is read again as far as shown).
        subprocess.run(["cp", os.path.join(FIXTURES, "mixed-sizes.pdf"), late_path], check=True)
        wait_until(lambda: self.row(late["id"]).find_element(By.CSS_SELECTOR, ".pages").text == "4", 5,
                   "the last row to show the new version (mixed-sizes.pdf has 4 pages)")
        check(self.js(shown_ids) == listed, "still every document once")

        # The state filter is asked of the service: its dirty documents, also those not read yet.
        self.open_page(server)
        wait_until(lambda: len(self.js(shown_ids)) == 100, 10, "the first 100 rows again")
        Select(self.driver.find_element(By.ID, "state-filter")).select_by_value("dirty")
        wait_until(lambda: self.js(shown_ids) == dirty, 10, "only the dirty documents")
        states = self.js("return [...document.querySelectorAll('#document-rows tr')].map((row) => row.dataset.state)")
        check(set(states) == {"dirty"}, f"every row is dirty: {states}")
        check(any("state=dirty" in read for read in self.js(list_reads)), "the page asked the service for state=dirty")
        count = self.driver.find_element(By.ID, "document-count").text
        check(count == f"{len(dirty)} documents in state dirty", f"the count says so: {count!r}")
        check(not self.driver.find_element(By.ID, "more-button").is_displayed(), "one page holds them all")
        Select(self.driver.find_element(By.ID, "state-filter")).select_by_value("clean")
        wait_until(lambda: len(self.js(shown_ids)) == 100, 10, "the first 100 clean rows")
        check(not set(self.js(shown_ids)) & set(dirty), "no dirty row among the clean ones")
        check(self.driver.find_element(By.ID, "more-button").is_displayed(), "more clean documents follow")
        self.screenshot("paged.png")

    def test_first_paint_of_a_thousand_documents(self):
        server = Server(self.work, "many")
        self.servers.append(server)
        with open(os.path.join(FIXTURES, "one-page.pdf"), "rb") as file:
            template = file.read()
        # Each upload a distinct PDF (same pages, a comment after %%EOF), so none is a duplicate.
        bodies = (template + f"\n% document {index}\n".encode() for index in range(FIRST_PAINT_DOCUMENTS))
        started = time.monotonic()
        with ThreadPoolExecutor(max_workers=4) as pool:
            list(pool.map(lambda body: server.request("POST", "/documents", body, {"Content-Type": "application/pdf"}),
                          bodies))
        print(f"    {FIRST_PAINT_DOCUMENTS} uploads: {time.monotonic() - started:.1f} s", flush=True)
        timings = []
        for _ in range(3):
            self.driver.get(server.url + "/")
            marks = wait_until(lambda: self.js(
                "const painted = performance.getEntriesByName('quire:list-painted')[0];"
                "const rendered = performance.getEntriesByName('quire:list-rendered')[0];"
                "const list = performance.getEntriesByType('resource').find((entry) => entry.name.includes('/documents?'));"
                "return painted && rendered && list && [rendered.startTime, painted.startTime,"
                " document.querySelectorAll('#document-rows tr').length, list.responseEnd];"), 10, "the list's paint")
            check(marks[2] == min(FIRST_PAINT_DOCUMENTS, 100), f"the first page is listed ({marks[2]} rows)")
            timings.append(marks[1])
            print(f"    list read by {marks[3]:.0f} ms, rendered by {marks[0]:.0f} ms, painted by {marks[1]:.0f} ms "
                  "(from navigation)", flush=True)
        worst = max(timings)
        self.screenshot("thousand.png")
        print(f"    first paint of a store of {FIRST_PAINT_DOCUMENTS} documents (its first page): median "
              f"{sorted(timings)[1]:.0f} ms, worst {worst:.0f} ms (bound {FIRST_PAINT_BOUND_MS:.0f} ms)", flush=True)
        check(worst < FIRST_PAINT_BOUND_MS,
              f"the list painted within {FIRST_PAINT_BOUND_MS:.0f} ms every time (worst {worst:.0f} ms)")


def main():
    if not os.access(QUIRE, os.X_OK):
        print(f"no {QUIRE}: build first (swift build)", file=sys.stderr)
        return 2
    work = tempfile.mkdtemp(prefix="quire-browser-")
    os.chmod(work, 0o700)
    os.environ["QUIRE_COORDINATION_DIR"] = os.path.join(work, "coordination")
    os.environ["QUIRE_COORDINATION_QUIET"] = "1"
    os.environ["QUIRE_LOG_LEVEL"] = "warning"
    only = sys.argv[1:]
    passed = failed = 0
    suite = None
    started = time.monotonic()
    try:
        suite = BrowserTests(work)
        names = [name for name in dir(BrowserTests) if name.startswith("test_")]
        order = sorted(names, key=lambda name: BrowserTests.__dict__[name].__code__.co_firstlineno)
        for name in order:
            if only and not any(wanted in name for wanted in only):
                continue
            test_started = time.monotonic()
            try:
                getattr(suite, name)()
                errors = suite.console_errors()
                check(not errors, "console errors:\n      " + "\n      ".join(errors))
                passed += 1
                print(f"  ✔ {name} ({time.monotonic() - test_started:.1f} s)", flush=True)
            except Exception as error:  # a failed check, a timeout or a WebDriver error: report, go on
                failed += 1
                print(f"  ✘ {name} ({time.monotonic() - test_started:.1f} s): {error}", flush=True)
                if not isinstance(error, Failure):
                    traceback.print_exc()
                try:
                    suite.screenshot(f"failed-{name}.png")
                    suite.console_errors()
                except Exception:
                    pass
    except Exception:
        failed += 1
        traceback.print_exc()
    finally:
        if suite:
            suite.close()
        if failed:
            for name in os.listdir(work):
                log = os.path.join(work, name, "serve.log")
                if os.path.exists(log) and os.path.getsize(log) > 0:
                    with open(log) as file:
                        print(f"--- {name}/serve.log (end)\n{file.read()[-3000:]}", file=sys.stderr)
        shutil.rmtree(work, ignore_errors=True)
    print(f"browser tests took {time.monotonic() - started:.1f} s; screenshots in {SCREENSHOTS}")
    print(f"browser: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
