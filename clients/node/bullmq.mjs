// BullMQ: Queue.add of several jobs, a Worker processing them all, a delayed
// job, a job that fails once and succeeds on retry, one that fails for good,
// and completion events through QueueEvents (Redis streams).
import { Queue, QueueEvents, Worker } from 'bullmq';
import { check, expect, host, port, run, waitFor } from './flowlib.mjs';

run('bullmq', 60, async () => {
  const connection = { host, port, maxRetriesPerRequest: null };
  const name = `cairn-bull-${process.pid}`;
  const queue = new Queue(name, { connection });
  const events = new QueueEvents(name, { connection });
  await queue.waitUntilReady();
  await events.waitUntilReady();

  const completedEvents = new Map();
  const failedEvents = new Map();
  events.on('completed', ({ jobId, returnvalue }) => completedEvents.set(jobId, returnvalue));
  events.on('failed', ({ jobId, failedReason }) => failedEvents.set(jobId, failedReason));

  const attempts = new Map();
  const processedAt = new Map();
  const worker = new Worker(name, async (job) => {
    attempts.set(job.name, (attempts.get(job.name) || 0) + 1);
    processedAt.set(job.name, Date.now());
    switch (job.name) {
      case 'flaky':
        if (job.attemptsMade === 0) throw new Error('first attempt fails');
        return 'recovered';
      case 'doomed':
        throw new Error('always fails');
      default:
        return job.data.n * 2;
    }
  }, { connection, concurrency: 2 });
  const workerCompleted = [];
  worker.on('completed', (job) => workerCompleted.push(job.id));
  worker.on('error', (e) => console.error(`worker error: ${e}`));
  await worker.waitUntilReady();

  const plain = await queue.addBulk(Array.from({ length: 5 }, (_, n) => ({ name: `double-${n}`, data: { n } })));
  const single = await queue.add('double-9', { n: 9 });
  const addedAt = Date.now();
  const delayed = await queue.add('delayed', { n: 21 }, { delay: 700 });
  const flaky = await queue.add('flaky', {}, { attempts: 3, backoff: { type: 'fixed', delay: 100 } });
  const doomed = await queue.add('doomed', {}, { attempts: 2, backoff: { type: 'fixed', delay: 50 } });
  expect(await delayed.getState(), 'delayed', 'state of the delayed job right after add');

  const okIds = [...plain, single, delayed, flaky].map((j) => j.id);
  await waitFor(() => okIds.every((id) => completedEvents.has(id)) && failedEvents.has(doomed.id), 30000,
    () => `completion events (completed ${[...completedEvents.keys()]}, failed ${[...failedEvents.keys()]})`);

  for (const [n, job] of plain.entries()) {
    expect((await queue.getJob(job.id)).returnvalue, n * 2, `return value of ${job.name}`);
    expect(String(completedEvents.get(job.id)), String(n * 2), `completed event of ${job.name}`);
  }
  expect((await queue.getJob(single.id)).returnvalue, 18, 'return value of double-9');
  expect((await queue.getJob(delayed.id)).returnvalue, 42, 'return value of the delayed job');
  check(processedAt.get('delayed') - addedAt >= 650, `delayed job ran after ${processedAt.get('delayed') - addedAt} ms, before its 700 ms delay`);
  expect(attempts.get('flaky'), 2, 'attempts of the flaky job');
  expect((await queue.getJob(flaky.id)).returnvalue, 'recovered', 'flaky job after retry');
  expect(attempts.get('doomed'), 2, 'attempts of the doomed job');
  const d = await queue.getJob(doomed.id);
  expect(await d.getState(), 'failed', 'state of the doomed job');
  expect(d.failedReason, 'always fails', 'failedReason');
  expect(failedEvents.get(doomed.id), 'always fails', 'failed event');
  const counts = await queue.getJobCounts('completed', 'failed', 'waiting', 'delayed', 'active');
  expect([counts.completed, counts.failed, counts.waiting, counts.delayed, counts.active], [8, 1, 0, 0, 0], 'job counts (completed, failed, waiting, delayed, active)');
  check(workerCompleted.length === 8, `worker completed events: ${workerCompleted.length}`);

  await worker.close();
  await events.close();
  await queue.obliterate({ force: true });
  await queue.close();
});
