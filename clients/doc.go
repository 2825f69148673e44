// Package clients holds no code of the server: its tests drive Cairn with
// real client libraries and job queues, the way applications use them —
// redis-py, RQ and Celery (python/), Sidekiq (ruby/), node-redis, ioredis
// and BullMQ (node/), go-redis and rueidis (in the tests themselves).
//
// The tests start a Cairn in-process on a loopback listener, or a real
// redis-server when CAIRN_CLIENTS_TARGET=redis, which proves the flows
// themselves right. Each flow names the features it needs (MULTI, scripting,
// pub/sub, client tracking, streams, or single commands); a flow whose
// feature the server does not have yet is skipped, decided by asking the
// server (COMMAND INFO) at the start, so a flow starts running by itself the
// day its feature lands. See README.md in this directory.
package clients
