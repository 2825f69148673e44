"""redis-py everyday commands: every type, expiry, SCAN, a plain pipeline."""

import time

import redis

from flowlib import address, bound, check, expect, ok

bound(30)
host, port = address()
r = redis.Redis(host=host, port=port, socket_timeout=10, decode_responses=True)

expect(r.ping(), True, "PING")
r.client_setname("py-basic")
expect(r.client_getname(), "py-basic", "CLIENT GETNAME")
expect(r.set("b:s", "v", ex=100), True, "SET EX")
check(0 < r.ttl("b:s") <= 100, "TTL after SET EX")
expect(r.set("b:s", "w", nx=True), None, "SET NX on an existing key")
expect(r.getset("b:s", "x"), "v", "GETSET")
expect(r.incrbyfloat("b:f", 1.5), 1.5, "INCRBYFLOAT")
expect(r.mget("b:s", "b:f", "b:none"), ["x", "1.5", None], "MGET")

expect(r.hset("b:h", mapping={"a": "1", "b": "2"}), 2, "HSET mapping")
expect(r.hgetall("b:h"), {"a": "1", "b": "2"}, "HGETALL")
expect(r.hincrby("b:h", "a", 5), 6, "HINCRBY")

expect(r.rpush("b:l", "a", "b", "c"), 3, "RPUSH")
expect(r.blpop(["b:l"], timeout=1), ("b:l", "a"), "BLPOP of a ready list")
start = time.monotonic()
expect(r.blpop(["b:empty"], timeout=0.2), None, "BLPOP timeout")
check(time.monotonic() - start >= 0.15, "BLPOP returned before its timeout")
expect(r.lrange("b:l", 0, -1), ["b", "c"], "LRANGE")

expect(r.sadd("b:set", "x", "y", "z"), 3, "SADD")
expect(r.smembers("b:set"), {"x", "y", "z"}, "SMEMBERS")
expect(r.zadd("b:z", {"a": 1, "b": 2.5, "c": 3}), 3, "ZADD")
expect(r.zrange("b:z", 0, -1, withscores=True), [("a", 1.0), ("b", 2.5), ("c", 3.0)], "ZRANGE WITHSCORES")
expect(r.zincrby("b:z", 1, "a"), 2.0, "ZINCRBY")

for i in range(120):
    r.set("b:scan:%d" % i, i)
expect(len(set(r.scan_iter(match="b:scan:*", count=17))), 120, "keys found by SCAN")
expect(r.type("b:z"), "zset", "TYPE")
expect(r.expire("b:h", 1), True, "EXPIRE")
expect(r.persist("b:h"), True, "PERSIST")

with r.pipeline(transaction=False) as p:
    for i in range(200):
        p.incr("b:pipe")
    res = p.execute()
expect(res[-1], 200, "last INCR of a 200-command pipeline")
expect(r.delete("b:s", "b:f", "b:none"), 2, "DEL")
check(r.dbsize() > 0, "DBSIZE")
ok("py_basic")
