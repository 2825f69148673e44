"""RQ: enqueue jobs, run `rq worker --burst` on them, check their results."""

import os
import subprocess
import sys

import redis
from rq import Queue
from rq.job import Job, JobStatus
from rq.registry import FailedJobRegistry

import rq_jobs
from flowlib import bound, check, expect, fail, ok, url

bound(90)
conn = redis.Redis.from_url(url(), socket_timeout=10)
q = Queue("cairn-rq", connection=conn)
q.empty()

adds = [q.enqueue(rq_jobs.add, i, i * 10) for i in range(5)]
bad = q.enqueue(rq_jobs.boom, "expected failure", retry=None)
dep = q.enqueue(rq_jobs.collect, "x", "y", depends_on=adds[-1])
expect(q.count, 6, "jobs waiting (the dependent one is deferred)")

# The worker runs as users run it: the rq command, burst mode, in its own process.
here = os.path.dirname(os.path.abspath(__file__))
cmd = [sys.executable, "-m", "rq.cli", "worker", "--burst", "--url", url(), "--path", here, "cairn-rq"]
try:
    out = subprocess.run(cmd, cwd=here, capture_output=True, text=True, timeout=60)
except subprocess.TimeoutExpired as e:
    fail("rq worker --burst did not finish in 60 s; output:\n%s%s" % (e.stdout or "", e.stderr or ""))
if out.returncode != 0:
    fail("rq worker exited %d:\n%s%s" % (out.returncode, out.stdout, out.stderr))

for i, job in enumerate(adds):
    job = Job.fetch(job.id, connection=conn)
    expect(job.get_status(), JobStatus.FINISHED, "status of add job %d" % i)
    expect(job.result, i + i * 10, "result of add job %d" % i)
dep = Job.fetch(dep.id, connection=conn)
expect(dep.get_status(), JobStatus.FINISHED, "status of the dependent job")
expect(dep.result, ["x", "y"], "result of the dependent job")
bad = Job.fetch(bad.id, connection=conn)
expect(bad.get_status(), JobStatus.FAILED, "status of the failing job")
check("expected failure" in (bad.exc_info or ""), "traceback of the failing job: %r" % bad.exc_info)
check(bad.id in FailedJobRegistry(queue=q).get_job_ids(), "failing job in the failed registry")
expect(q.count, 0, "jobs left in the queue")
ok("rq_worker")
