// scripts/bench/callgrind-functions.ts: a function's own instructions, JIT code named by the last
// perf-map range that covers it, the compilers summed, a call's cost left to its callee.
import t from 'tap';
import { COMPILER, rangesOf, selfInstructions } from '#tools/bench';

const DUMP = `version: 1
creator: callgrind-3.19.0
events: Ir
summary: 892
ob=(1) /usr/bin/node
fl=(1) ???
fn=(1) 0x0000000000001010
0 100
cfn=(2) Builtins_LoadIC
calls=1 0
0 500
fn=(2)
0 50
fn=(3) v8::internal::compiler::GraphReducer::ReduceTop()
0 200
fn=(6) v8::internal::maglev::MaglevGraphBuilder::Build()
0 20
fn=(4) 0x0000000000002005
+1 30
* 5
fn=(5) 0x0000000000009999
-2 7
fn=(7)
+3
totals: 892
`;
const MAP = `1000 100 JS:*gone node:old
1000 80 JS:*handler file:///x.js:1:1
2000 10 JS:~find y.js:2:3
`;

t.test('own instructions by function, JIT code named through the perf map', async (t) => {
  t.same(Object.fromEntries(selfInstructions(DUMP, MAP)), {
    'JS:*handler file:///x.js:1:1': 100,
    Builtins_LoadIC: 50,
    [COMPILER]: 220,
    'JS:~find y.js:2:3': 35,
    '0x0000000000009999': 7,
    // Named nowhere (a dump cut short), and a line whose events are all left out: zero.
    '(7)': 0,
  });
});

t.test('a perf map line: start and size in hex, then a name that may hold spaces', async (t) => {
  t.same(rangesOf('7f00 1a JS:*a b.js:1:2\n\n'), [{ start: 0x7f00, end: 0x7f1a, name: 'JS:*a b.js:1:2' }]);
});
