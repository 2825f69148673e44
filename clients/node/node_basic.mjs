// node-redis (RESP2 and RESP3) and ioredis everyday use: every type, SCAN
// iterators, auto-pipelining, blocking pops, plain pipelines.
import { createClient } from 'redis';
import Redis from 'ioredis';
import { check, expect, fail, host, port, run, url } from './flowlib.mjs';

async function nodeRedis(resp) {
  const c = createClient({ url: url(), RESP: resp });
  c.on('error', (e) => fail(`node-redis RESP${resp} error: ${e}`));
  await c.connect();
  const p = `nb${resp}:`;
  expect(await c.set(`${p}s`, 'v', { EX: 100 }), 'OK', 'SET EX');
  expect(await c.get(`${p}s`), 'v', 'GET');
  await c.hSet(`${p}h`, { a: '1', b: '2' });
  expect({ ...(await c.hGetAll(`${p}h`)) }, { a: '1', b: '2' }, `RESP${resp} HGETALL`);
  await c.zAdd(`${p}z`, [{ score: 1, value: 'a' }, { score: 2.5, value: 'b' }]);
  expect(await c.zRangeWithScores(`${p}z`, 0, -1), [{ value: 'a', score: 1 }, { value: 'b', score: 2.5 }], `RESP${resp} ZRANGE WITHSCORES`);
  expect(await c.zScore(`${p}z`, 'b'), 2.5, `RESP${resp} ZSCORE`);
  await c.sAdd(`${p}set`, ['x', 'y']);
  expect((await c.sMembers(`${p}set`)).sort(), ['x', 'y'], `RESP${resp} SMEMBERS`);
  // Commands issued together go out as one pipeline.
  const replies = await Promise.all(Array.from({ length: 100 }, () => c.incr(`${p}n`)));
  expect(replies[99], 100, 'last of 100 auto-pipelined INCRs');
  await c.rPush(`${p}l`, ['a', 'b']);
  expect(await c.blPop(`${p}l`, 1), { key: `${p}l`, element: 'a' }, `RESP${resp} BLPOP`);
  expect(await c.blPop(`${p}empty`, 0.1), null, `RESP${resp} BLPOP timeout`);
  for (let i = 0; i < 60; i++) await c.set(`${p}scan:${i}`, String(i));
  const seen = new Set();
  for await (const keys of c.scanIterator({ MATCH: `${p}scan:*`, COUNT: 7 })) keys.forEach((k) => seen.add(k));
  expect(seen.size, 60, `RESP${resp} keys found by scanIterator`);
  const pl = await c.multi().set(`${p}x`, '1').get(`${p}x`).execAsPipeline();
  expect(pl, ['OK', '1'], 'execAsPipeline');
  await c.close();
}

async function ioredis() {
  const c = new Redis({ host, port, lazyConnect: true, maxRetriesPerRequest: 1 });
  await c.connect();
  expect(await c.set('io:k', 'v', 'PX', 10000), 'OK', 'ioredis SET PX');
  check((await c.pttl('io:k')) > 0, 'ioredis PTTL');
  const res = await c.pipeline().incr('io:n').incr('io:n').hset('io:h', 'f', 'v').hgetall('io:h').exec();
  expect(res, [[null, 1], [null, 2], [null, 1], [null, { f: 'v' }]], 'ioredis pipeline');
  for (let i = 0; i < 40; i++) await c.sadd('io:set', `m${i}`);
  const members = [];
  await new Promise((resolve, reject) => {
    c.sscanStream('io:set', { count: 5 }).on('data', (m) => members.push(...m)).on('end', resolve).on('error', reject);
  });
  expect(new Set(members).size, 40, 'ioredis sscanStream members');
  expect(await c.brpop('io:empty', 0.1), null, 'ioredis BRPOP timeout');
  await c.quit();
}

run('node_basic', 30, async () => {
  await nodeRedis(2);
  await nodeRedis(3);
  await ioredis();
});
