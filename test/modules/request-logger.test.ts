// The lazy request loggers alone (src/logging/request-logger.ts): each method of pino's logger goes
// through the child made on first use, and nothing is made before it is needed.
import { Writable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import t from 'tap';
import { RequestLogger, withLazyChildren } from '../../src/logging/request-logger.js';

function sinkLogger(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write: (chunk, _encoding, done) => void (lines.push(JSON.parse(String(chunk))), done()),
  });
  return { lines, logger: pino({ level }, stream) as FastifyBaseLogger };
}

t.test('every level writes through the child, bound to its bindings, made once on the first line', async (t) => {
  const { lines, logger } = sinkLogger('trace');
  const child = withLazyChildren(logger).child({ reqId: 'r1' });
  t.ok(child instanceof RequestLogger);
  t.equal(child.level, 'trace', "before any line, the parent's level");
  for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const) child[level](`a ${level} line`);
  child.silent('nothing');
  t.same(
    lines.map(({ msg, reqId, level }) => ({ msg, reqId, level })),
    [60, 50, 40, 30, 20, 10].map((level, index) => ({
      msg: `a ${['fatal', 'error', 'warn', 'info', 'debug', 'trace'][index]} line`,
      reqId: 'r1',
      level,
    })),
  );
  t.equal(child.level, 'trace', "the child's level once it is made");
});

t.test(
  'levels: of the options before the child is made, then of the child; isLevelEnabled asks the right one',
  async (t) => {
    const { lines, logger } = sinkLogger('info');
    const quiet = withLazyChildren(logger).child({ reqId: 'r2' }, { level: 'warn' }) as RequestLogger;
    t.equal(quiet.level, 'warn', 'the level the child will have');
    t.notOk(quiet.isLevelEnabled('info'), 'asked of the child, which is made for it');
    t.ok(quiet.isLevelEnabled('error'));
    const plain = withLazyChildren(logger).child({ reqId: 'r3' }) as RequestLogger;
    t.ok(plain.isLevelEnabled('info'), 'asked of the parent while no child exists');
    t.notOk(plain.isLevelEnabled('debug'));
    plain.level = 'debug';
    t.ok(plain.isLevelEnabled('debug'), 'a level set makes the child and holds for it');
    plain.debug('now written');
    t.same(
      lines.map(({ msg }) => msg),
      ['now written'],
    );
    const grandchild = plain.child({ step: 1 });
    grandchild.info('from a child of a child');
    t.match(lines[1], { reqId: 'r3', step: 1, msg: 'from a child of a child' });
  },
);

t.test('a logger without isLevelEnabled is taken as enabled for nothing', async (t) => {
  const bare = { level: 'info', child: () => bare } as unknown as FastifyBaseLogger;
  t.notOk((withLazyChildren(bare).child({}) as RequestLogger).isLevelEnabled('info'));
});
