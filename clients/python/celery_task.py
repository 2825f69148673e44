"""Celery with the redis broker and result backend: a solo worker runs tasks."""

import os
import signal
import subprocess
import sys
import time

from flowlib import address, bound, check, expect, fail, ok

bound(120)
here = os.path.dirname(os.path.abspath(__file__))
host, port = address()
os.environ["CAIRN_ADDR"] = "%s:%d" % (host, port)
env = dict(os.environ, PYTHONPATH=here)

from celery_app import add, app  # noqa: E402  (after the environment is set)
from celery_app import fail as failing  # noqa: E402

worker = subprocess.Popen(
    [sys.executable, "-m", "celery", "-A", "celery_app", "worker", "--pool=solo", "--concurrency=1",
     "--without-gossip", "--without-mingle", "--without-heartbeat", "--loglevel=WARNING", "-n", "cairn@%h"],
    cwd=here, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def stop_worker():
    if worker.poll() is None:
        worker.send_signal(signal.SIGTERM)
        try:
            worker.wait(15)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait(5)
    return worker.stdout.read()


try:
    r = add.delay(2, 3)
    try:
        expect(r.get(timeout=45), 5, "result of add(2, 3)")
    except Exception as e:  # a timeout names no cause: show the worker's log
        fail("add(2, 3): %r\nworker output:\n%s" % (e, stop_worker()))
    expect(r.status, "SUCCESS", "state of add")
    results = [add.delay(i, i) for i in range(3)]
    expect([x.get(timeout=30) for x in results], [0, 2, 4], "three more tasks")
    f = failing.delay("expected failure")
    try:
        f.get(timeout=30)
        fail("a failing task returned a result")
    except ValueError as e:
        check("expected failure" in str(e), "exception of the failing task: %r" % e)
    expect(f.status, "FAILURE", "state of the failing task")
finally:
    out = stop_worker()
    app.close()
# The worker was stopped by SIGTERM (warm shutdown); it must not have crashed.
check("Traceback" not in out or "expected failure" in out, "worker output:\n" + out)
ok("celery_task")
