// node-redis pub/sub: SUBSCRIBE and PSUBSCRIBE on a duplicated connection
// (RESP2), then on a RESP3 connection that keeps running commands.
import { createClient } from 'redis';
import { expect, fail, run, url, waitFor } from './flowlib.mjs';

async function flow(resp) {
  const pub = createClient({ url: url(), RESP: resp });
  pub.on('error', (e) => fail(`publisher error: ${e}`));
  await pub.connect();
  const sub = pub.duplicate();
  sub.on('error', (e) => fail(`subscriber error: ${e}`));
  await sub.connect();

  const got = [];
  await sub.subscribe('np:ch', (message, channel) => got.push(['message', channel, message]));
  await sub.pSubscribe('np:news.*', (message, channel) => got.push(['pmessage', channel, message]));
  expect(await pub.publish('np:ch', 'hello'), 1, `RESP${resp}: receivers of np:ch`);
  expect(await pub.publish('np:news.tech', 'chips'), 1, `RESP${resp}: receivers of np:news.tech`);
  expect(await pub.publish('np:nobody', 'x'), 0, `RESP${resp}: receivers of an unheard channel`);
  await waitFor(() => got.length >= 2, 5000, `RESP${resp}: two messages (got ${JSON.stringify(got)})`);
  expect(got, [['message', 'np:ch', 'hello'], ['pmessage', 'np:news.tech', 'chips']], `RESP${resp}: messages`);
  expect({ ...(await pub.pubSubNumSub('np:ch')) }, { 'np:ch': 1 }, `RESP${resp}: PUBSUB NUMSUB`);

  if (resp === 3) {
    // RESP3 lets a subscribed connection run ordinary commands.
    await sub.set('np:k', 'v');
    expect(await sub.get('np:k'), 'v', 'RESP3: GET on a subscribed connection');
  }
  await sub.unsubscribe('np:ch');
  await sub.pUnsubscribe('np:news.*');
  await waitFor(async () => (await pub.pubSubNumSub('np:ch'))['np:ch'] === 0, 5000, `RESP${resp}: unsubscribe`);
  expect(await pub.publish('np:ch', 'gone'), 0, `RESP${resp}: receivers after UNSUBSCRIBE`);
  await sub.close();
  await pub.close();
}

run('node_pubsub', 30, async () => {
  await flow(2);
  await flow(3);
});
