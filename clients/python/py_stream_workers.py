"""redis-py consumer-group workers: a producer, three consumers, a crash, XAUTOCLAIM recovery.

A producer XADDs N jobs while three consumers of one group read them with
XREADGROUP > (COUNT, a short BLOCK) and XACK each. A fourth consumer reads a
few entries before the others start and "crashes" without acknowledging
them; a recovery consumer takes them over with XAUTOCLAIM once they have
been idle long enough and acknowledges them. Every job must be processed
exactly once, and the group must end with nothing pending and no lag.
"""

import threading
import time

import redis

from flowlib import address, bound, check, expect, fail, ok

bound(40)
host, port = address()
r = redis.Redis(host=host, port=port, socket_timeout=10)

STREAM, GROUP = "sw:jobs", "workers"
N, FIRST, CRASHED = 300, 20, 7
WORKERS = ["w0", "w1", "w2"]

r.xgroup_create(STREAM, GROUP, id="$", mkstream=True)
try:
    r.xgroup_create(STREAM, GROUP, id="$")
    fail("XGROUP CREATE of an existing group succeeded")
except redis.ResponseError as e:
    check(str(e).startswith("BUSYGROUP"), "XGROUP CREATE twice: %s" % e)

produced = []
# The first jobs go in before any consumer runs, so the crashing consumer
# has entries to take.
for i in range(FIRST):
    produced.append(r.xadd(STREAM, {"job": str(i)}))

crash = r.xreadgroup(GROUP, "crash", {STREAM: ">"}, count=CRASHED)
expect(len(crash), 1, "streams in the crashing consumer's read")
crashed_ids = [eid for eid, _ in crash[0][1]]
expect(crashed_ids, produced[:CRASHED], "entries the crashing consumer took")
# It stops here: it never acknowledges them.

lock = threading.Lock()
processed = []  # (consumer, id, job) of every acknowledged job
errors = []
producer_done = threading.Event()


def producer():
    try:
        c = redis.Redis(host=host, port=port, socket_timeout=10)
        for i in range(FIRST, N):
            eid = c.xadd(STREAM, {"job": str(i)})
            with lock:
                produced.append(eid)
    except Exception as e:  # reported below
        errors.append("producer: %r" % e)
    finally:
        producer_done.set()


def worker(name):
    try:
        c = redis.Redis(host=host, port=port, socket_timeout=10)
        for _ in range(10 * N):  # bounded; ends far sooner
            done = producer_done.is_set()
            reply = c.xreadgroup(GROUP, name, {STREAM: ">"}, count=10, block=100)
            entries = reply[0][1] if reply else []
            if not entries:
                if done:
                    return  # the producer had finished before this empty read
                continue
            for eid, fields in entries:
                with lock:
                    processed.append((name, eid, fields[b"job"]))
            acked = c.xack(STREAM, GROUP, *[eid for eid, _ in entries])
            if acked != len(entries):
                errors.append("%s: XACK of %d entries acknowledged %d" % (name, len(entries), acked))
                return
        errors.append("%s: still reading after %d rounds" % (name, 10 * N))
    except Exception as e:  # reported below
        errors.append("%s: %r" % (name, e))


threads = [threading.Thread(target=producer)] + [threading.Thread(target=worker, args=(w,)) for w in WORKERS]
for t in threads:
    t.start()
for t in threads:
    t.join()
check(not errors, "errors: %s" % errors)
expect(len(produced), N, "jobs produced")
expect(r.xlen(STREAM), N, "XLEN")

# Only the crashed consumer's entries are pending now.
summary = r.xpending(STREAM, GROUP)
expect(summary["pending"], CRASHED, "XPENDING count before recovery")
expect(summary["min"], crashed_ids[0], "XPENDING smallest id")
expect(summary["max"], crashed_ids[-1], "XPENDING largest id")
expect(summary["consumers"], [{"name": b"crash", "pending": CRASHED}], "XPENDING consumers")

# Recovery: XAUTOCLAIM takes entries idle for at least 50 ms. An entry idle
# for less is left alone, so wait until all have been claimed (bounded).
MIN_IDLE = 50
claimed = []
deadline = time.monotonic() + 10
while len(claimed) < CRASHED:
    check(time.monotonic() < deadline, "XAUTOCLAIM claimed only %d of %d entries" % (len(claimed), CRASHED))
    nxt, msgs, deleted = r.xautoclaim(STREAM, GROUP, "recovery", MIN_IDLE, start_id="0-0", count=100)
    expect(deleted, [], "XAUTOCLAIM deleted ids")
    expect(nxt, b"0-0", "XAUTOCLAIM cursor after a full scan")
    for eid, fields in msgs:
        processed.append(("recovery", eid, fields[b"job"]))
        claimed.append(eid)
    if msgs:
        expect(r.xack(STREAM, GROUP, *[eid for eid, _ in msgs]), len(msgs), "XACK by the recovery consumer")
    else:
        time.sleep(0.02)
expect(sorted(claimed, key=produced.index), crashed_ids, "entries recovered")

# A second XAUTOCLAIM finds nothing left.
expect(r.xautoclaim(STREAM, GROUP, "recovery", 0, start_id="0-0"), [b"0-0", [], []], "XAUTOCLAIM with nothing pending")

# Every job was processed exactly once, with the fields it was added with.
ids = [eid for _, eid, _ in processed]
expect(len(ids), N, "jobs processed (exactly once)")
index = {eid: i for i, eid in enumerate(produced)}
expect(sorted(ids, key=lambda eid: index.get(eid, -1)), produced, "ids processed")
for who, eid, job in processed:
    if job != str(index[eid]).encode():
        fail("%s processed %s with job %r, want %r" % (who, eid, job, index[eid]))
by = {}
for who, _, _ in processed:
    by[who] = by.get(who, 0) + 1
expect(by.get("recovery"), CRASHED, "jobs processed by the recovery consumer")
check(sum(by.get(w, 0) for w in WORKERS) == N - CRASHED, "workers processed %r" % by)

summary = r.xpending(STREAM, GROUP)
expect(summary["pending"], 0, "XPENDING count at the end")
expect(r.xpending_range(STREAM, GROUP, "-", "+", 10), [], "XPENDING range at the end")

groups = r.xinfo_groups(STREAM)
expect(len(groups), 1, "groups")
g = groups[0]
expect(g["name"], GROUP.encode(), "group name")
expect(g["pending"], 0, "group pending")
expect(g["last-delivered-id"], produced[-1], "group last-delivered-id")
expect(g["entries-read"], N, "group entries-read")
expect(g["lag"], 0, "group lag")
# XINFO CONSUMERS lists every consumer that took entries. A worker that
# never got one (the others drained the stream) is listed by Redis 7.2,
# which creates the consumer on any XREADGROUP, but not by Redis 7.0, which
# creates it when it first serves it, so it may or may not be there.
consumers = r.xinfo_consumers(STREAM, GROUP)
names = set(c["name"] for c in consumers)
expect(len(names), len(consumers), "XINFO CONSUMERS names are distinct")
expect(g["consumers"], len(consumers), "group consumers")
must = set([b"crash", b"recovery"] + [w.encode() for w in by if w in WORKERS])
check(must <= names, "XINFO CONSUMERS %r lacks %r" % (sorted(names), sorted(must - names)))
check(names <= set([b"crash", b"recovery"] + [w.encode() for w in WORKERS]), "XINFO CONSUMERS has unknown names: %r" % sorted(names))
for c in consumers:
    expect(c["pending"], 0, "pending of consumer %r" % c["name"])

# The crashed consumer is removed; it has nothing pending to lose.
expect(r.xgroup_delconsumer(STREAM, GROUP, "crash"), 0, "XGROUP DELCONSUMER pending")
expect(r.xinfo_groups(STREAM)[0]["consumers"], len(consumers) - 1, "consumers after DELCONSUMER")
ok("py_stream_workers")
