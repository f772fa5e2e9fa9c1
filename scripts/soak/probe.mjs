// Loaded into the service process by npm run bench -- soak (node --expose-gc --import <this> dist/server.js):
// responds to each "sample" message on the IPC channel with what only the process itself can measure.
// Plain JavaScript, so that it adds nothing to the service's start but this file.
import { readdirSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

// The histogram records the time between a timer's turns: its resolution plus the delay.
const RESOLUTION_MS = 10;
const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
delay.enable();

process.on('message', (message) => {
  if (message !== 'sample') return;
  // A full collection first: what is left is what the process holds, not garbage not yet collected.
  globalThis.gc();
  const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
  process.send({
    rss,
    heapUsed,
    external,
    arrayBuffers,
    eventLoopDelayP99Ms: Math.max(0, delay.percentile(99) / 1e6 - RESOLUTION_MS),
    eventLoopDelayMaxMs: Math.max(0, delay.max / 1e6 - RESOLUTION_MS),
    fds: readdirSync('/proc/self/fd').length,
  });
  delay.reset();
});
// The channel never keeps the service alive: it exits as it would without it.
process.channel?.unref();
