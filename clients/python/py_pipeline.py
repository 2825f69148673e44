"""redis-py pipeline(): MULTI/EXEC by default (transaction=True)."""

import redis

from flowlib import address, bound, check, expect, ok

bound(30)
host, port = address()
r = redis.Redis(host=host, port=port, socket_timeout=10)

with r.pipeline() as p:  # transaction=True is redis-py's default
    p.set("pl:a", "1").incr("pl:a").get("pl:a").rpush("pl:l", "x", "y").lrange("pl:l", 0, -1)
    expect(p.execute(), [True, 2, b"2", 2, [b"x", b"y"]], "transactional pipeline results")

# A command that fails at run time inside MULTI fails alone; the others apply.
with r.pipeline() as p:
    p.set("pl:s", "text").incr("pl:s").set("pl:after", "done")
    res = p.execute(raise_on_error=False)
    expect(len(res), 3, "number of replies")
    check(res[0] is True and res[2] is True, "commands around the failing one applied: %r" % (res,))
    check(isinstance(res[1], redis.ResponseError), "INCR of a string inside MULTI is an error: %r" % (res[1],))
    expect(r.get("pl:after"), b"done", "write after the failing command")

# A syntax error while queuing discards the whole transaction (EXECABORT).
with r.pipeline() as p:
    p.set("pl:never", "1").execute_command("SET", "pl:never")
    try:
        p.execute()
        raise AssertionError("no error")
    except redis.ResponseError as e:
        check("EXECABORT" in str(e) or "wrong number" in str(e), "error for a bad command in MULTI: %s" % e)
    except AssertionError:
        expect("executed", "an error", "pipeline with a wrong-arity command")
    expect(r.exists("pl:never"), 0, "key of an aborted transaction")

# The plain pipeline (no MULTI) too.
with r.pipeline(transaction=False) as p:
    p.incr("pl:n").incr("pl:n").get("pl:n")
    expect(p.execute(), [1, 2, b"2"], "non-transactional pipeline")
ok("py_pipeline")
