// Helpers shared by the Node client flows. Every flow takes the server's
// address (host:port) as its first argument or from CAIRN_ADDR, bounds its
// own run time, and on failure prints a line starting with FAIL and exits
// non-zero.
import { isDeepStrictEqual, inspect } from 'node:util';

export const addr = process.argv[2] || process.env.CAIRN_ADDR || '127.0.0.1:6379';
export const url = (db = 0) => `redis://${addr}/${db}`;
export const [host, portText] = [addr.slice(0, addr.lastIndexOf(':')), addr.slice(addr.lastIndexOf(':') + 1)];
export const port = Number(portText);

export function fail(message) {
  console.error(`FAIL: ${message}`);
  process.exit(1);
}

export function check(cond, message) {
  if (!cond) fail(message);
}

export function expect(got, want, what) {
  if (!isDeepStrictEqual(got, want)) fail(`${what}: got ${inspect(got)}, want ${inspect(want)}`);
}

// bound ends the process with a failure after seconds; the timer does not
// keep the process alive.
export function bound(name, seconds) {
  setTimeout(() => {
    console.error(`FAIL: ${name} did not finish within ${seconds}s`);
    process.exit(3);
  }, seconds * 1000).unref();
}

// run runs a flow's body, turning an exception into a failure, and exits
// once it is done (a client left open must not hold the process).
export function run(name, seconds, body) {
  bound(name, seconds);
  body().then(
    () => {
      console.log(`ok: ${name}`);
      process.exit(0);
    },
    (err) => fail(`${name}: ${err && err.stack ? err.stack : err}`),
  );
}

// waitFor polls cond every 10 ms until it holds or ms pass.
export async function waitFor(cond, ms, what) {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) fail(`timed out waiting for ${typeof what === 'function' ? what() : what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
