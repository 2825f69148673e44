"""Job functions for rq_worker.py; the RQ worker imports them by name."""


def add(a, b):
    return a + b


def boom(message):
    raise ValueError(message)


def collect(*ids):
    return sorted(ids)
