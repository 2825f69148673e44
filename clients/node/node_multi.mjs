// node-redis: MULTI/EXEC with multi(), and WATCH with optimistic retries.
import { createClient, WatchError } from 'redis';
import { check, expect, fail, run, url } from './flowlib.mjs';

run('node_multi', 60, async () => {
  const client = createClient({ url: url() });
  client.on('error', (e) => fail(`client error: ${e}`));
  await client.connect();

  const res = await client.multi().set('nm:a', '1').incr('nm:a').get('nm:a').rPush('nm:l', ['x', 'y']).lRange('nm:l', 0, -1).exec();
  expect(res, ['OK', 2, '2', 2, ['x', 'y']], 'multi().exec() replies');

  // A run-time error inside MULTI fails that command only.
  await client.set('nm:s', 'text');
  const mixed = await client.multi().incr('nm:s').set('nm:after', 'done').exec().catch((e) => e);
  check(mixed instanceof Error, `multi with a failing command rejects: ${mixed}`);
  expect(await client.get('nm:after'), 'done', 'write after the failing command');

  // WATCH on a dedicated connection; a conflicting write aborts EXEC.
  const watcher = client.duplicate();
  await watcher.connect();
  await watcher.watch('nm:w');
  await client.set('nm:w', 'other');
  const aborted = await watcher.multi().set('nm:w', 'mine').exec().catch((e) => e);
  check(aborted instanceof WatchError, `EXEC after a conflicting write: ${aborted}`);
  expect(await client.get('nm:w'), 'other', 'value after the aborted transaction');
  await watcher.close();

  // Concurrent read-modify-write increments, each retried until it commits.
  await client.set('nm:counter', '0');
  const workers = 4;
  const each = 25;
  await Promise.all(Array.from({ length: workers }, async () => {
    const c = client.duplicate();
    await c.connect();
    for (let i = 0; i < each; i++) {
      for (;;) {
        await c.watch('nm:counter');
        const v = Number(await c.get('nm:counter'));
        try {
          await c.multi().set('nm:counter', String(v + 1)).exec();
          break;
        } catch (e) {
          if (!(e instanceof WatchError)) throw e;
        }
      }
    }
    await c.close();
  }));
  expect(await client.get('nm:counter'), String(workers * each), 'counter after concurrent WATCH increments');

  // execAsPipeline sends the same commands without MULTI.
  expect(await client.multi().incr('nm:p').incr('nm:p').execAsPipeline(), [1, 2], 'execAsPipeline');
  await client.close();
});
