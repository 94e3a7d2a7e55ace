"""A tiny HTTP proxy for the object-store tests, run by tests/cli/zarr_s3.rs on 127.0.0.1.

    fault_proxy.py PORT UPSTREAM_PORT MODE N [COUNTS_FILE]

forwards every request to the server at 127.0.0.1:UPSTREAM_PORT, except:

- MODE fail-every: every Nth request is answered 500 (an S3 InternalError) without
  being forwarded;
- MODE stop-after-puts: after N PUT requests were forwarded, the proxy stops (the
  server is gone mid-copy: later connections are refused);
- MODE fail-puts-after: after N PUT requests were forwarded, every PUT is answered 500
  (the server refuses writes but still lists and deletes);
- MODE slow-puts-after: after N PUT requests were forwarded, every PUT waits a quarter
  of a second before it is forwarded (a slow link, for interrupting a copy mid-way);
- MODE count: nothing is injected (N is not used); after each request, the number of
  requests forwarded so far by method is written to COUNTS_FILE, a line `METHOD COUNT`
  per method (`scripts/bench` reads it before and after each run).

Each fault is logged to standard error as a line `injected ...`.
"""
import http.client
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT, UPSTREAM, MODE, N = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
COUNTS_FILE = sys.argv[5] if len(sys.argv) > 5 else None
lock = threading.Lock()
counts = {"requests": 0, "puts": 0}
by_method = {}


def count(method):
    """Counts a forwarded request of `method` and, in MODE count, writes the counts."""
    with lock:
        by_method[method] = by_method.get(method, 0) + 1
        if MODE == "count" and COUNTS_FILE:
            text = "".join("%s %d\n" % kv for kv in sorted(by_method.items()))
            with open(COUNTS_FILE + ".tmp", "w") as f:
                f.write(text)
            os.replace(COUNTS_FILE + ".tmp", COUNTS_FILE)


def log(text):
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


class Proxy(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # An answer's headers and body are two writes: without TCP_NODELAY the body waits
    # for the client's delayed ACK of the headers (40 ms a request on Linux).
    disable_nagle_algorithm = True

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
        # The body was read whole above: the client's 100-continue was answered already.
        skip = ("connection", "expect")
        headers = {k: v for k, v in self.headers.items() if k.lower() not in skip}
        upstream.request(self.command, self.path, body=body, headers=headers)
        answer = upstream.getresponse()
        data = answer.read()
        count(self.command)
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
