"""redis-py pubsub(): SUBSCRIBE, PSUBSCRIBE, messages, run_in_thread."""

import threading
import time

import redis

from flowlib import address, bound, check, expect, fail, ok

bound(30)
host, port = address()
r = redis.Redis(host=host, port=port, socket_timeout=10)
p = r.pubsub()


def next_message(timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        m = p.get_message(timeout=0.5)
        if m is not None:
            return m
    fail("no pub/sub message within %.0fs" % timeout)


p.subscribe("ps:ch")
expect(next_message(), {"type": "subscribe", "pattern": None, "channel": b"ps:ch", "data": 1}, "subscribe confirmation")
p.psubscribe("ps:news.*")
expect(next_message(), {"type": "psubscribe", "pattern": None, "channel": b"ps:news.*", "data": 2}, "psubscribe confirmation")

expect(r.publish("ps:ch", "hello"), 1, "receivers of ps:ch")
expect(next_message(), {"type": "message", "pattern": None, "channel": b"ps:ch", "data": b"hello"}, "message")
expect(r.publish("ps:news.tech", "chips"), 1, "receivers of ps:news.tech")
expect(next_message(), {"type": "pmessage", "pattern": b"ps:news.*", "channel": b"ps:news.tech", "data": b"chips"}, "pmessage")
expect(r.publish("ps:other", "x"), 0, "receivers of a channel nobody listens to")
expect(r.pubsub_numsub("ps:ch"), [(b"ps:ch", 1)], "PUBSUB NUMSUB")
expect(r.pubsub_numpat(), 1, "PUBSUB NUMPAT")
check(b"ps:ch" in r.pubsub_channels("ps:*"), "PUBSUB CHANNELS lists ps:ch")

p.unsubscribe("ps:ch")
expect(next_message(), {"type": "unsubscribe", "pattern": None, "channel": b"ps:ch", "data": 1}, "unsubscribe confirmation")
expect(r.publish("ps:ch", "gone"), 0, "receivers after UNSUBSCRIBE")
p.punsubscribe()
expect(next_message()["type"], "punsubscribe", "punsubscribe confirmation")
p.close()

# Handlers run by a background thread, as applications use it.
got = []
done = threading.Event()


def handler(message):
    got.append(message["data"])
    if len(got) == 3:
        done.set()


q = r.pubsub(ignore_subscribe_messages=True)
q.subscribe(**{"ps:work": handler})
thread = q.run_in_thread(sleep_time=0.05, daemon=True)
deadline = time.monotonic() + 5
while r.pubsub_numsub("ps:work")[0][1] != 1:
    check(time.monotonic() < deadline, "background subscriber never subscribed")
    time.sleep(0.02)
for i in range(3):
    r.publish("ps:work", "job%d" % i)
check(done.wait(5), "background handler got %r" % (got,))
expect(got, [b"job0", b"job1", b"job2"], "messages in order")
thread.stop()
thread.join(5)
ok("py_pubsub")
