"""A tiny HTTP proxy for the object-store tests, run by tests/cli/zarr_s3.rs on 127.0.0.1.

    fault_proxy.py PORT UPSTREAM_PORT MODE N

forwards every request to the server at 127.0.0.1:UPSTREAM_PORT, except:

- MODE fail-every: every Nth request is answered 500 (an S3 InternalError) without
  being forwarded;
- MODE stop-after-puts: after N PUT requests were forwarded, the proxy stops (the
  server is gone mid-copy: later connections are refused);
- MODE fail-puts-after: after N PUT requests were forwarded, every PUT is answered 500
  (the server refuses writes but still lists and deletes);
- MODE slow-puts-after: after N PUT requests were forwarded, every PUT waits a quarter
  of a second before it is forwarded (a slow link, for interrupting a copy mid-way).

Each fault is logged to standard error as a line `injected ...`.
"""
import http.client
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT, UPSTREAM, MODE, N = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
lock = threading.Lock()
counts = {"requests": 0, "puts": 0}


def log(text):
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


class Proxy(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def forward(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        with lock:
            counts["requests"] += 1
            fail = MODE == "fail-every" and counts["requests"] % N == 0
            if self.command == "PUT":
                counts["puts"] += 1
                fail = fail or (MODE == "fail-puts-after" and counts["puts"] > N)
            stop = MODE == "stop-after-puts" and counts["puts"] > N
            slow = MODE == "slow-puts-after" and self.command == "PUT" and counts["puts"] > N
        if stop:
            log("injected stop at PUT %d" % counts["puts"])
            os._exit(0)
        if slow:
            log("injected delay on PUT %d" % counts["puts"])
            time.sleep(0.25)
        if fail:
            log("injected 500 on %s %s" % (self.command, self.path))
            page = b"<Error><Code>InternalError</Code><Message>injected</Message></Error>"
            self.send_response(500)
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)
            return
        upstream = http.client.HTTPConnection("127.0.0.1", UPSTREAM, timeout=60)
        headers = {k: v for k, v in self.headers.items() if k.lower() != "connection"}
        upstream.request(self.command, self.path, body=body, headers=headers)
        answer = upstream.getresponse()
        data = answer.read()
        self.send_response(answer.status, answer.reason)
        for key, value in answer.getheaders():
            if key.lower() not in ("transfer-encoding", "connection", "content-length"):
                self.send_header(key, value)
        # A HEAD answer's length is the object's size, as the server gave it.
        length = answer.getheader("Content-Length") if self.command == "HEAD" else None
        self.send_header("Content-Length", length or str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        upstream.close()

    do_GET = do_HEAD = do_PUT = do_POST = do_DELETE = forward


ThreadingHTTPServer(("127.0.0.1", PORT), Proxy).serve_forever()
