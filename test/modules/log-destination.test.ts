import { closeSync, openSync, readFileSync, write, writeSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t, { type Test } from 'tap';
import { createLogDestination } from '../../src/logging/log-destination.js';

function logFile(t: Test) {
  const path = join(t.testdir(), 'out.log');
  const fd = openSync(path, 'a');
  t.teardown(() => closeSync(fd));
  return { fd, read: () => readFileSync(path, 'utf8') };
}

async function until(condition: () => boolean) {
  for (let tries = 0; tries < 200 && !condition(); tries++) await sleep(5);
}

t.test('lines are held until a block is full, then written together, in order', async (t) => {
  const file = logFile(t);
  const destination = createLogDestination(file.fd, { minBytes: 30, flushEveryMs: 60_000 });
  for (const line of ['one\n', 'two\n', 'three\n']) destination.write(line);
  await sleep(20);
  t.equal(file.read(), '', 'nothing written below the block size');
  destination.write('a line that fills the block\n');
  await until(() => file.read() !== '');
  t.equal(file.read(), 'one\ntwo\nthree\na line that fills the block\n');
});

t.test('a line is written at the latest flushEveryMs after it was logged', async (t) => {
  const file = logFile(t);
  const destination = createLogDestination(file.fd, { minBytes: 1 << 20, flushEveryMs: 20 });
  destination.write('lonely line\n');
  await until(() => file.read() !== '');
  t.equal(file.read(), 'lonely line\n');
  destination.write('and another\n');
  await until(() => file.read().includes('another'));
  t.equal(file.read(), 'lonely line\nand another\n');
});

t.test('lines logged while a block is being written follow it', async (t) => {
  const file = logFile(t);
  const destination = createLogDestination(file.fd, { minBytes: 10, flushEveryMs: 20 });
  const lines = Array.from({ length: 200 }, (_, index) => `line ${index}\n`);
  for (const line of lines) destination.write(line);
  await until(() => file.read().length === lines.join('').length);
  t.equal(file.read(), lines.join(''));
});

t.test('flushSync writes what is held at once', async (t) => {
  const file = logFile(t);
  const destination = createLogDestination(file.fd, { minBytes: 1 << 20, flushEveryMs: 60_000 });
  destination.write('held 1\n');
  destination.write('held 2\n');
  destination.flushSync();
  t.equal(file.read(), 'held 1\nheld 2\n');
  destination.flushSync();
  t.equal(file.read(), 'held 1\nheld 2\n', 'nothing twice');
});

t.test('a full pipe (EAGAIN) is retried, a short write goes on, a failed write is reported and skipped', async (t) => {
  const written: string[] = [];
  const outcomes = ['EAGAIN', 3, 'rest', 'EIO', 'rest'];
  const fakeWrite = ((
    _fd: number,
    block: Buffer,
    offset: number,
    length: number,
    _position: null,
    callback: (error: NodeJS.ErrnoException | null, written: number) => void,
    // eslint-disable-next-line max-params -- fs.write's own signature, which this fake stands in for
  ) => {
    const outcome = outcomes.shift();
    if (typeof outcome === 'string' && outcome !== 'rest')
      return setImmediate(() => callback(Object.assign(new Error(outcome), { code: outcome }), 0));
    const count = typeof outcome === 'number' ? outcome : length;
    written.push(block.subarray(offset, offset + count).toString());
    setImmediate(() => callback(null, count));
  }) as unknown as typeof write;
  // Captured, not only listened to: Node would print it in the middle of npm test's output.
  const warned = t.capture(process, 'emitWarning');
  const destination = createLogDestination(1, {
    minBytes: 1,
    flushEveryMs: 10,
    fs: { write: fakeWrite, writeSync: writeSync },
  });
  destination.write('first line\n');
  await until(() => written.join('') === 'first line\n');
  t.same(written, ['fir', 'st line\n'], 'retried after EAGAIN, then the rest of a short write');
  destination.write('lost line\n');
  await until(() => warned.calls.length > 0);
  t.match(
    warned().map(({ args }) => args[0]),
    [/10 bytes of log lines could not be written: EIO/],
  );
  destination.write('next line\n');
  await until(() => written.includes('next line\n'));
  t.same(written, ['fir', 'st line\n', 'next line\n'], 'later lines are still written');
});

t.test('a line logged during a write below the block size waits for the timer, after that write', async (t) => {
  const written: string[] = [];
  const pending: (() => void)[] = [];
  const fakeWrite = ((
    _fd: number,
    block: Buffer,
    offset: number,
    length: number,
    _position: null,
    callback: (error: null, written: number) => void,
    // eslint-disable-next-line max-params -- fs.write's own signature, which this fake stands in for
  ) => {
    pending.push(() => {
      written.push(block.subarray(offset, offset + length).toString());
      callback(null, length);
    });
  }) as unknown as typeof write;
  const destination = createLogDestination(1, { minBytes: 5, flushEveryMs: 10, fs: { write: fakeWrite, writeSync } });
  destination.write('a full block\n');
  destination.write('x\n');
  t.equal(pending.length, 1, 'one write in flight');
  pending.shift()!();
  await until(() => pending.length > 0);
  pending.shift()!();
  t.same(written, ['a full block\n', 'x\n']);
});
