import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
const KEY = 'abcdefghijklmnopqrstuvwxyz123456';
const path = process.argv[2] ?? '/v1/pets?limit=20';
const post = process.argv[3];
function start(file) {
  const child = spawn(process.execPath, [file], { env: { ...process.env, API_KEY: KEY, SEED_PETS: '1000' }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((res) => child.stdout.once('data', (d) => res({ child, port: JSON.parse(String(d)).port })));
}
const cpu = (pid) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8'); const x = f.slice(f.lastIndexOf(')') + 2).split(' '); return (Number(x[11]) + Number(x[12])) / 100; };
async function run(s, d) {
  const b = cpu(s.child.pid);
  const opts = { url: `http://127.0.0.1:${s.port}${path}`, connections: 10, duration: d, headers: { authorization: `Bearer ${KEY}` } };
  if (post) Object.assign(opts, { method: 'POST', body: post, headers: { ...opts.headers, 'content-type': 'application/json' } });
  const r = await autocannon(opts);
  if (r.non2xx) throw new Error('non2xx ' + r.non2xx);
  return (cpu(s.child.pid) - b) / r['2xx'] * 1e6;
}
const svc = await start('dist-bench/scripts/bench/service-server.js');
const base = await start('dist-bench/scripts/bench/baseline-server.js');
await run(svc, 1); await run(base, 1);
const a = [], c = [];
for (let i = 0; i < 3; i++) { a.push(await run(svc, 2)); c.push(await run(base, 2)); }
const med = (x) => x.sort((p, q) => p - q)[1];
console.log(`service ${med(a).toFixed(1)} µs, baseline ${med(c).toFixed(1)} µs, ratio ${(med(a) / med(c)).toFixed(2)}`);
svc.child.kill(); base.child.kill();
