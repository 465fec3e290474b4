"""Take the screenshots of docs/screenshots/ from the built site, in headless Chromium.

Run from the repository root after ``mkdocs build --strict`` (which writes site/):

    python docs/_gen/screenshots.py [--site site] [--out docs/screenshots]

The site is served on 127.0.0.1 (a free port) for the duration, and each page in PAGES is
loaded in Debian's ``chromium`` (``apt-get install chromium``) with no network beyond that server.
``tests/test_docs.py`` loads the same pages and checks them for missing images and math errors.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
import shutil
import socketserver
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

PAGES = {"home": "", "tutorial": "tutorials/02_sequence_form_kuhn/",
         "reference": "reference/concepts/"}
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
         "--disable-dev-shm-usage", "--virtual-time-budget=15000", "--window-size=1280,1600"]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextlib.contextmanager
def serve(directory: Path):
    handler = functools.partial(_QuietHandler, directory=str(directory))
    with socketserver.TCPServer(("127.0.0.1", 0), handler) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}/"
        finally:
            server.shutdown()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", default="site", type=Path)
    parser.add_argument("--out", default="docs/screenshots", type=Path)
    args = parser.parse_args(argv)
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        print("no chromium: apt-get install chromium", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    with serve(args.site) as base, tempfile.TemporaryDirectory() as profile:
        for name, path in PAGES.items():
            shot = (args.out / f"{name}.png").resolve()
            subprocess.run([browser, *FLAGS, f"--user-data-dir={profile}",
                            f"--screenshot={shot}", base + path],
                           check=True, capture_output=True, timeout=180)
            print(shot)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
