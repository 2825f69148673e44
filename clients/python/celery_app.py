"""A Celery app on the server under test: broker in db 0, results in db 1."""

import os

from celery import Celery

# The worker's own command line is Celery's, so the address comes from the
# environment only (celery_task.py sets it).
_addr = os.environ.get("CAIRN_ADDR", "127.0.0.1:6379")
app = Celery("cairn", broker="redis://%s/0" % _addr, backend="redis://%s/1" % _addr)
app.conf.update(
    broker_connection_retry_on_startup=True,
    broker_connection_max_retries=3,
    result_expires=300,
    task_acks_late=True,
    worker_hijack_root_logger=False,
)


@app.task
def add(a, b):
    return a + b


@app.task
def fail(message):
    raise ValueError(message)
