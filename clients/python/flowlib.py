"""Helpers shared by the Python client flows.

Every flow takes the server's address as its first argument or from the
CAIRN_ADDR environment variable (host:port), bounds its own run time, and
on failure prints a line starting with FAIL and exits non-zero.
"""

import os
import signal
import sys
import traceback


def _uncaught(kind, value, tb):
    traceback.print_exception(kind, value, tb)
    print("FAIL: %s: %s: %s" % (os.path.basename(sys.argv[0]), kind.__name__, value), file=sys.stderr, flush=True)


sys.excepthook = _uncaught


def address():
    """The server under test as (host, port)."""
    addr = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("CAIRN_ADDR", "127.0.0.1:6379")
    host, _, port = addr.rpartition(":")
    return host or "127.0.0.1", int(port)


def url(db=0):
    host, port = address()
    return "redis://%s:%d/%d" % (host, port, db)


def bound(seconds):
    """Ends the process with a failure if it is still running after seconds."""

    def expired(signum, frame):
        print("FAIL: %s did not finish within %ds" % (os.path.basename(sys.argv[0]), seconds), file=sys.stderr, flush=True)
        os._exit(3)

    signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)


def fail(message):
    print("FAIL: " + message, file=sys.stderr, flush=True)
    sys.exit(1)


def check(cond, message):
    if not cond:
        fail(message)


def expect(got, want, what):
    if got != want:
        fail("%s: got %r, want %r" % (what, got, want))


def ok(name):
    print("ok: " + name, flush=True)
