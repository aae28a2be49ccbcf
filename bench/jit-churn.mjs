// Does V8 keep compiling while the gateway serves the same requests? A gateway runs one scenario
// with --trace-opt --trace-deopt in rounds of load; each round prints its answers and the
// optimizations and deoptimizations V8 made during it. Once warm, a round should make next to
// none: a steady count means work done again and again (a function whose optimized code is
// dropped and made anew, a deopt loop), which costs the compiler thread's CPU and runs the code
// unoptimized meanwhile. At the end: the functions optimized more than once, by source file.
//
//   node bench/jit-churn.mjs --only keys-chat [--concurrency 64] [--rounds 6] [--seconds 5]
//     [--gateway-dir D] [--top 25]
//
// (This found the settle callback made per request in budget-leases.ts compiled about once a
// second under load; it is a class since.)
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, startFake, startGateway, stopAll } from './lib/children.mjs';
import { runCell } from './lib/load.mjs';
import { merge, parseSpec } from './lib/paired-targets.mjs';

function options(argv) {
  const opts = { only: undefined, concurrency: 64, rounds: 6, seconds: 5, dir: '.', top: 25 };
  for (let i = 0; i < argv.length; i += 2) {
    const [arg, value] = [argv[i], argv[i + 1]];
    if (arg === '--only') opts.only = value;
    else if (arg === '--concurrency') opts.concurrency = Number(value);
    else if (arg === '--rounds') opts.rounds = Number(value);
    else if (arg === '--seconds') opts.seconds = Number(value);
    else if (arg === '--gateway-dir') opts.dir = value;
    else if (arg === '--top') opts.top = Number(value);
    else throw new Error(`unknown option ${arg}`);
  }
  if (!opts.only) throw new Error('--only <scenario> is required');
  return opts;
}

/** V8's trace lines so far: optimizations completed (with the function named as V8 names it) and deopts. */
function traced(logPath) {
  const text = readFileSync(logPath, 'utf8');
  const optimized = [];
  let deopts = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('[completed optimizing')) {
      const m = /<JSFunction ([^<]*)<([^>]*)> \(sfi = (0x[0-9a-f]+)\)/.exec(line);
      if (m) optimized.push({ name: m[1].trim() || '(anonymous)', file: m[2].replace(`file://${ROOT}/`, ''), sfi: m[3] });
    } else if (line.startsWith('[bailout')) deopts++;
  }
  return { optimized, deopts };
}

const opts = options(process.argv.slice(2));
process.env.BENCH_GATEWAY_NODE_ARGS = `${process.env.BENCH_GATEWAY_NODE_ARGS ?? ''} --trace-opt --trace-deopt --trace-file-names`;
try {
  const file = join(ROOT, 'bench', 'scenarios', `${opts.only}.mjs`);
  const scenario = (await import(pathToFileURL(file).href)).default;
  const fake = await startFake([file]);
  const setup = await scenario.setup({ fakeUrl: fake.url });
  const config = merge({ logging: { level: 'warn' }, providers: { openai: { baseUrl: `${fake.url}/v1` } } }, setup.gatewayConfig);
  const { dir, overlay } = parseSpec(opts.dir);
  const gateway = await startGateway(overlay ? merge(structuredClone(config), overlay) : config, { label: 'jit-churn', root: resolve(dir) });
  if (setup.afterStart) await setup.afterStart({ gatewayUrl: gateway.url });
  let before = traced(gateway.logPath);
  process.stdout.write(`${opts.only}, c=${opts.concurrency}, rounds of ${opts.seconds} s; V8's work during each round\n`);
  process.stdout.write(`round  answers  optimized  deopts  optimized per 10,000 answers\n`);
  let firstRounds = 0;
  for (let round = 1; round <= opts.rounds; round++) {
    const result = await runCell({
      origin: gateway.url,
      request: setup.request,
      concurrency: opts.concurrency,
      warmupMs: 0,
      measureMs: opts.seconds * 1000,
      staggerMs: scenario.staggerMs ?? 0,
    });
    const now = traced(gateway.logPath);
    const optimized = now.optimized.length - before.optimized.length;
    const perTenThousand = result.requests ? ((optimized * 10_000) / result.requests).toFixed(1) : '-';
    process.stdout.write(
      `${String(round).padStart(5)}  ${String(result.requests).padStart(7)}  ${String(optimized).padStart(9)}  ${String(now.deopts - before.deopts).padStart(6)}  ${perTenThousand.padStart(8)}\n`,
    );
    if (round === 2) firstRounds = now.optimized.length;
    before = now;
  }
  // Functions optimized more than once after the first two rounds (the warm-up's compiles left out).
  const late = before.optimized.slice(firstRounds);
  const all = new Map();
  for (const o of before.optimized) all.set(o.sfi, (all.get(o.sfi) ?? 0) + 1);
  const again = new Map();
  for (const o of late) if (all.get(o.sfi) > 1) again.set(o.sfi, { ...o, times: all.get(o.sfi) });
  const top = [...again.values()].sort((a, b) => b.times - a.times).slice(0, opts.top);
  process.stdout.write(`\noptimized again after round 2 (times in the whole run): ${top.length ? '' : 'none'}\n`);
  for (const o of top) process.stdout.write(`${String(o.times).padStart(4)}  ${o.name}  ${o.file}\n`);
} finally {
  await stopAll();
}
