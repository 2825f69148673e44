"""redis-py transaction() with WATCH: optimistic locking, retried on conflict."""

import threading

import redis

from flowlib import address, bound, check, expect, fail, ok

bound(60)
host, port = address()
r = redis.Redis(host=host, port=port, socket_timeout=10)
r.set("w:counter", 0)

# A conflicting write between WATCH and EXEC makes EXEC fail.
with r.pipeline() as p:
    p.watch("w:counter")
    r.set("w:counter", 100)
    p.multi()
    p.set("w:counter", 1)
    try:
        p.execute()
        fail("EXEC after a conflicting write succeeded")
    except redis.WatchError:
        pass
expect(r.get("w:counter"), b"100", "value after the aborted transaction")
r.set("w:counter", 0)

# Concurrent read-modify-write increments, each retried until it commits.
THREADS, EACH = 4, 25
errors = []


def incr(pipe):
    value = int(pipe.get("w:counter"))
    pipe.multi()
    pipe.set("w:counter", value + 1)


def worker():
    try:
        c = redis.Redis(host=host, port=port, socket_timeout=10)
        for _ in range(EACH):
            c.transaction(incr, "w:counter")
    except Exception as e:  # reported below
        errors.append(repr(e))


threads = [threading.Thread(target=worker) for _ in range(THREADS)]
for t in threads:
    t.start()
for t in threads:
    t.join()
check(not errors, "worker errors: %s" % errors)
expect(int(r.get("w:counter")), THREADS * EACH, "counter after concurrent WATCH increments")

# transaction() returns the callable's value with value_from_callable.
got = r.transaction(lambda p: (p.multi(), p.incr("w:counter"))[1] and "done", "w:counter", value_from_callable=True)
expect(got, "done", "value_from_callable")
ok("py_watch")
