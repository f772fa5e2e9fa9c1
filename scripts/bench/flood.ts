// A flood of reads from a process of its own (autocannon's command), as another client's would be:
// the fair-share scenario of the benchmark and its system test both load the service with it.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

export interface FloodCounts {
  responded: number;
  refused: number;
  total: number;
}

/** `connections` connections sending GET `url` with `authorization` for `seconds`; the counts when it ends. */
export function flood(url: string, authorization: string, seconds: number, connections = 64): Promise<FloodCounts> {
  const cli = createRequire(import.meta.url).resolve('autocannon/autocannon.js');
  const child = spawn(
    process.execPath,
    [cli, '--json', '-c', String(connections), '-d', String(seconds), '-H', `authorization=${authorization}`, url],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => void (output += chunk));
  return new Promise((resolve, reject) => {
    /* c8 ignore start -- autocannon that hangs or fails: the run stops with why */
    const limit = setTimeout(() => child.kill('SIGKILL'), seconds * 1000 + 60_000);
    child.once('exit', (code) => {
      clearTimeout(limit);
      if (code !== 0) return reject(new Error(`the flood's autocannon exited with ${code}`));
      /* c8 ignore stop */
      const result = JSON.parse(output) as {
        '2xx': number;
        statusCodeStats: Record<string, { count: number }>;
        requests: { total: number };
      };
      resolve({
        responded: result['2xx'],
        refused: result.statusCodeStats['429']?.count ?? 0,
        total: result.requests.total,
      });
    });
  });
}
