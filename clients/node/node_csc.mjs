// node-redis client-side caching (RESP3 + CLIENT TRACKING): a second GET is
// served from the cache, and a write by another client invalidates it.
import { createClient, BasicClientSideCache } from 'redis';
import { check, expect, fail, run, url, waitFor } from './flowlib.mjs';

run('node_csc', 30, async () => {
  const cache = new BasicClientSideCache({ ttl: 0, maxEntries: 0 });
  const client = createClient({ url: url(), RESP: 3, clientSideCache: cache });
  client.on('error', (e) => fail(`client error: ${e}`));
  await client.connect();
  const writer = createClient({ url: url() });
  writer.on('error', (e) => fail(`writer error: ${e}`));
  await writer.connect();

  await writer.set('csc:k', 'v1');
  expect(await client.get('csc:k'), 'v1', 'first GET');
  expect(await client.get('csc:k'), 'v1', 'second GET');
  check(cache.stats().hitCount >= 1, `second GET is a cache hit: ${JSON.stringify(cache.stats())}`);
  check(cache.size() >= 1, 'one entry cached');

  // Another client's write sends an invalidation; the next GET sees v2.
  await writer.set('csc:k', 'v2');
  await waitFor(async () => (await client.get('csc:k')) === 'v2', 5000, 'the cached value to be invalidated');
  // So does expiry-free deletion, and a write by this very client.
  await writer.del('csc:k');
  await waitFor(async () => (await client.get('csc:k')) === null, 5000, 'invalidation after DEL');
  await client.set('csc:k', 'v3');
  await waitFor(async () => (await client.get('csc:k')) === 'v3', 5000, 'invalidation after the client\'s own SET');

  // Hashes are cached per key too.
  await writer.hSet('csc:h', { f: '1' });
  expect({ ...(await client.hGetAll('csc:h')) }, { f: '1' }, 'HGETALL');
  await writer.hSet('csc:h', { f: '2' });
  await waitFor(async () => (await client.hGetAll('csc:h')).f === '2', 5000, 'hash invalidation');
  await writer.close();
  await client.close();
});
