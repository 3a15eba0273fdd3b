#!/usr/bin/env python3
"""A hostile feed server for the update feed's attack tests (started by CallDirFeedTests).

Serves the folder given as argv[1] on 127.0.0.1 (a free port, printed first on stdout), and
misbehaves per file as rules.json (next to the folder, re-read on every request) says:
  "slow"     answer nothing for 60 s (the client's time-out must fire)
  "late"     answer normally after 4 s (a slow mirror, or a long download)
  "extra"    the file followed by 1 MiB more, with a Content-Length that covers it all
  "endless"  200 with no Content-Length, then bytes forever (until the client hangs up)
  "missing"  404
  "trickle"  200 with the right Content-Length, then the body one byte every half second
  "trickle-head"  the status line and headers one byte every half second, never finished
  "304"      "not modified" to every conditional request (If-None-Match), forever; the
             file with a fixed ETag otherwise (a mirror that freezes a follower)
"""
import http.server
import json
import os
import signal
import sys
import time

ROOT = os.path.abspath(sys.argv[1])
RULES = os.path.join(os.path.dirname(ROOT), "rules.json")


class Handler(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=ROOT, **kwargs)

    def log_message(self, *args):
        pass

    def do_GET(self):
        rules = {}
        if os.path.exists(RULES):
            with open(RULES) as f:
                rules = json.load(f)
        name = self.path.split("?")[0].lstrip("/")
        rule = rules.get(name)
        path = os.path.join(ROOT, name)
        try:
            if rule == "slow":
                time.sleep(60)
                return
            if rule == "late":
                time.sleep(4)
                super().do_GET()
                return
            if rule == "missing":
                self.send_error(404)
                return
            if rule == "extra":
                with open(path, "rb") as f:
                    body = f.read() + b"\0" * (1 << 20)
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            if rule == "trickle":
                with open(path, "rb") as f:
                    body = f.read()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                for i in range(len(body)):
                    self.wfile.write(body[i:i + 1])
                    time.sleep(0.5)
                return
            if rule == "trickle-head":
                head = b"HTTP/1.1 200 OK\r\n" + b"X-Pad: a\r\n" * 100000
                for i in range(len(head)):
                    self.wfile.write(head[i:i + 1])
                    time.sleep(0.5)
                return
            if rule == "304":
                if self.headers.get("If-None-Match"):
                    self.send_response(304)
                    self.send_header("ETag", '"frozen"')
                    self.end_headers()
                    return
                with open(path, "rb") as f:
                    body = f.read()
                self.send_response(200)
                self.send_header("ETag", '"frozen"')
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            if rule == "endless":
                self.send_response(200)
                self.send_header("Connection", "close")
                self.end_headers()
                chunk = b"\xAB" * 65536
                while True:
                    self.wfile.write(chunk)
            super().do_GET()
        except (BrokenPipeError, ConnectionResetError):
            pass


# The test process may have SIGTERM ignored, which a child inherits: stop on it regardless.
signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
