"""redis-py register_script() and EVAL/EVALSHA, as libraries use them."""

import hashlib

import redis

from flowlib import address, bound, check, expect, fail, ok

bound(30)
host, port = address()
r = redis.Redis(host=host, port=port, socket_timeout=10)
r.script_flush()

SRC = """
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
local new = cur + tonumber(ARGV[1])
redis.call('SET', KEYS[1], new)
return {new, KEYS[1], 'done', false, 3.9}
"""
incr_by = r.register_script(SRC)
expect(incr_by.sha, hashlib.sha1(SRC.encode()).hexdigest(), "script SHA1")
# First call: EVALSHA fails with NOSCRIPT, redis-py loads it and retries.
expect(incr_by(keys=["sc:n"], args=[5]), [5, b"sc:n", b"done", None, 3], "first call")
expect(r.script_exists(incr_by.sha), [True], "SCRIPT EXISTS after the first call")
expect(incr_by(keys=["sc:n"], args=[2]), [7, b"sc:n", b"done", None, 3], "second call")
r.script_flush()
expect(r.script_exists(incr_by.sha), [False], "SCRIPT EXISTS after SCRIPT FLUSH")
expect(incr_by(keys=["sc:n"], args=[1])[0], 8, "call after SCRIPT FLUSH")

sha = r.script_load("return redis.call('GET', KEYS[1])")
expect(r.evalsha(sha, 1, "sc:n"), b"8", "EVALSHA of a loaded script")
try:
    r.evalsha("0" * 40, 0)
    fail("EVALSHA of an unknown SHA succeeded")
except redis.exceptions.NoScriptError:
    pass

# Errors raised by the script reach the client as errors.
try:
    r.eval("return redis.error_reply('MYERR custom failure')", 0)
    fail("redis.error_reply did not raise")
except redis.ResponseError as e:
    check("custom failure" in str(e), "error text: %s" % e)
expect(r.eval("return redis.status_reply('FINE')", 0), b"FINE", "status reply")
expect(r.eval("return {1, 2, {3, 'x'}}", 0), [1, 2, [3, b"x"]], "nested table")

# Scripts inside a pipeline (redis-py checks SCRIPT EXISTS, loads, then EVALSHA).
r.script_flush()
with r.pipeline(transaction=False) as p:
    incr_by(keys=["sc:p"], args=[1], client=p)
    incr_by(keys=["sc:p"], args=[1], client=p)
    res = p.execute()
expect([x[0] for x in res], [1, 2], "scripts in a pipeline")
ok("py_script")
