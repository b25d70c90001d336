"""A measuring instrument, not part of the harness: headless Chromium driven over the DevTools protocol.

The protocol runs over `--remote-debugging-pipe` (messages on file descriptors 3 and 4, each ended by a NUL byte),
so it needs no package and no port: the standard library and Debian's `chromium`. Used by the page's tests and by
`benchmarks/report_html.py` to open report.html from disk, read its DOM, drive its filters, time it and take
screenshots. Every network request the page makes is recorded (it should make none but file: and data:).
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

EXECUTABLE = "chromium"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-pipe",
)


class ChromiumError(RuntimeError):
    """Chromium is missing, died, or answered a command with an error."""


def chromium_path() -> str | None:
    """The chromium executable on PATH, or None."""
    return shutil.which(EXECUTABLE)


class Chromium:
    """One headless browser with one page; use as a context manager."""

    def __init__(self, width: int = 1280, height: int = 900, timeout_s: float = 120.0) -> None:
        executable = chromium_path()
        if executable is None:
            raise ChromiumError(f"no {EXECUTABLE} on PATH; on Debian: apt-get install -y chromium")
        self.timeout_s = timeout_s
        self.profile = Path(tempfile.mkdtemp(prefix="chromium-profile-"))
        self._to_child_read, self._to_child = os.pipe()
        self._from_child, self._from_child_write = os.pipe()
        self._log_path = self.profile.parent / f"{self.profile.name}.log"
        self._log = self._log_path.open("wb")
        self.process = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={self.profile}", f"--window-size={width},{height}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=self._log,
            close_fds=False,
            preexec_fn=self._pipes_on_3_and_4,
            # Chromium's own temporary folders (org.chromium.Chromium.*) go inside the profile and leave with it.
            env={**os.environ, "TMPDIR": str(self.profile)},
        )
        os.close(self._to_child_read)
        os.close(self._from_child_write)
        self._buffer = b""
        self._next_id = 0
        self._events: list[dict[str, Any]] = []
        self.requests: list[str] = []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Network"):
            self.call(f"{domain}.enable", session=True)
        self.call("Emulation.setDeviceMetricsOverride", session=True, width=width, height=height,
                  deviceScaleFactor=1, mobile=False)

    def _pipes_on_3_and_4(self) -> None:
        # In the child, before exec: the protocol's read end on fd 3 and write end on fd 4. Moved above 10 first
        # so neither dup2 overwrites the other pipe's descriptor.
        read_end = fcntl.fcntl(self._to_child_read, fcntl.F_DUPFD, 10)
        write_end = fcntl.fcntl(self._from_child_write, fcntl.F_DUPFD, 10)
        os.dup2(read_end, 3)
        os.dup2(write_end, 4)

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for fd in (self._to_child, self._from_child):
            try:
                os.close(fd)
            except OSError:
                pass
        self._log.close()
        self._log_path.unlink(missing_ok=True)
        shutil.rmtree(self.profile, ignore_errors=True)

    def _log_tail(self) -> str:
        # The log is removed with the profile on close: a dead browser's last words go into the error instead.
        self._log.flush()
        return self._log_path.read_bytes()[-300:].decode(errors="replace")

    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ChromiumError(f"no answer from chromium within {self.timeout_s} s")
            ready, _, _ = select.select([self._from_child], [], [], left)
            if ready:
                chunk = os.read(self._from_child, 1 << 20)
                if not chunk:
                    raise ChromiumError(
                        f"chromium closed the pipe (exit code {self.process.poll()}); its log ends: {self._log_tail()!r}"
                    )
                self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        message: dict[str, Any] = json.loads(raw)
        if message.get("method") == "Network.requestWillBeSent":
            # data: URLs hold whole images; their start says all a check needs.
            self.requests.append(message["params"]["request"]["url"][:200])
        return message

    def call(self, method: str, session: bool = False, **params: Any) -> dict[str, Any]:
        """Send one command (to the page when `session`) and return its result; events met meanwhile are kept."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self._to_child, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout_s
        while True:
            answer = self._read_message(deadline)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise ChromiumError(f"{method}: {answer['error']}")
                result: dict[str, Any] = answer.get("result", {})
                return result
            self._events.append(answer)

    def wait_event(self, method: str) -> dict[str, Any]:
        """The next event `method` of the page (one already received counts)."""
        for k, event in enumerate(self._events):
            if event.get("method") == method and event.get("sessionId") == self.session:
                return self._events.pop(k)
        deadline = time.monotonic() + self.timeout_s
        while True:
            event = self._read_message(deadline)
            if event.get("method") == method and event.get("sessionId") == self.session:
                return event
            self._events.append(event)

    def open(self, path: Path) -> float:
        """Load a file and wait for its load event; the wall seconds from the navigation to that event."""
        self._events.clear()
        started = time.perf_counter()
        self.call("Page.navigate", session=True, url=Path(path).resolve().as_uri())
        self.wait_event("Page.loadEventFired")
        return time.perf_counter() - started

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (promises awaited); a thrown error raises."""
        result = self.call("Runtime.evaluate", session=True, expression=expression, returnByValue=True,
                           awaitPromise=True)
        if "exceptionDetails" in result:
            raise ChromiumError(f"the page threw: {result['exceptionDetails'].get('exception', {}).get('description')}")
        return result["result"].get("value")

    def screenshot(self, path: Path, full_page: bool = False) -> Path:
        """A PNG of the viewport (or of the whole page, which for a long page is very tall), after two frames, so
        content that scrolling just brought into view (content-visibility: auto) is painted."""
        self.evaluate("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
            size = self.call("Page.getLayoutMetrics", session=True)["cssContentSize"]
            params["clip"] = {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}
        data = self.call("Page.captureScreenshot", session=True, **params)["data"]
        Path(path).write_bytes(base64.b64decode(data))
        return Path(path)
