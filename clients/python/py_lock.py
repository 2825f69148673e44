"""redis-py lock(): SET NX PX to take it, Lua scripts to release and extend."""

import threading
import time

import redis

from flowlib import address, bound, check, expect, ok

bound(60)
host, port = address()
r = redis.Redis(host=host, port=port, socket_timeout=10)

a = r.lock("lk:res", timeout=10)
b = r.lock("lk:res", timeout=10)
check(a.acquire(blocking=False), "first lock taken")
check(not b.acquire(blocking=False), "second lock refused while the first holds it")
check(a.owned(), "owner sees the lock as owned")
a.extend(5)
ttl = r.pttl("lk:res")
check(10000 < ttl <= 15000, "PTTL after extend(5) on a 10 s lock: %d" % ttl)
a.release()
check(not r.exists("lk:res"), "lock key removed on release")
try:
    a.release()
    check(False, "releasing a lock not held raised nothing")
except redis.exceptions.LockError:
    pass

# A lock that expired and was taken by another cannot be released by its old owner.
c = r.lock("lk:short", timeout=0.2)
check(c.acquire(blocking=False), "short lock taken")
time.sleep(0.4)
d = r.lock("lk:short", timeout=10)
check(d.acquire(blocking=False), "expired lock taken again")
try:
    c.release()
    check(False, "old owner released someone else's lock")
except redis.exceptions.LockNotOwnedError:
    pass
d.release()

# Mutual exclusion: a non-atomic read-modify-write under the lock stays exact.
r.set("lk:count", 0)
errors = []


def worker():
    try:
        c = redis.Redis(host=host, port=port, socket_timeout=10)
        for _ in range(20):
            with c.lock("lk:mutex", timeout=5, blocking_timeout=20, sleep=0.005):
                v = int(c.get("lk:count"))
                c.set("lk:count", v + 1)
    except Exception as e:
        errors.append(repr(e))


threads = [threading.Thread(target=worker) for _ in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
check(not errors, "worker errors: %s" % errors)
expect(int(r.get("lk:count")), 80, "count updated under the lock")
ok("py_lock")
