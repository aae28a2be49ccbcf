import { setFlagsFromString } from 'node:v8';

/**
 * How much the old generation may grow past what the last full collection kept before the next
 * one runs (V8's `--heap-growing-percent`). V8's own factor lets a gateway under load keep tens
 * of MB of promoted request garbage (bodies, headers, the buffers behind them) before it marks.
 * Measured at concurrency 64 (chat, both gateways under the same load): V8's own factor peaked
 * at about 230 MB; 100 % at about 160 MB for 4 % more CPU per request; 50 % at about 146 MB for
 * 6 %; 20 % at about 140 MB for 10 %. A value given on node's command line
 * (`node --heap-growing-percent=100 dist/main.js`, or 0 for V8's own) is kept.
 */
export const HEAP_GROWING_PERCENT = 50;

/** Whether node was started with `--<flag>` (or its underscore spelling), with or without a value. */
export function setOnCommandLine(execArgv: readonly string[], flag: string): boolean {
  const spellings = [flag, flag.replaceAll('-', '_')];
  return execArgv.some((arg) => spellings.some((s) => arg === `--${s}` || arg.startsWith(`--${s}=`)));
}

/**
 * Start-up allocates a lot that lives on (modules, compiled schemas and pipelines); V8 answers
 * that by growing the young generation to its maximum (2 x 16 MB), which then stays resident
 * for the life of an idle process. While the gateway starts, the young generation is kept at
 * its initial size (what survives goes to the old generation, where it belongs); once the
 * gateway serves, V8's usual growth is back, so load still gets the large young generation
 * that keeps scavenges rare. The old generation's growth is bounded for the whole life of
 * the process (HEAP_GROWING_PERCENT).
 */
export function holdYoungGeneration(execArgv: readonly string[] = process.execArgv): void {
  setFlagsFromString('--semi-space-growth-factor=1');
  if (!setOnCommandLine(execArgv, 'heap-growing-percent')) setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

/**
 * V8's allocation-site pretenuring is off in the gateway (`--no-allocation-site-pretenuring`).
 * When V8 sees most objects of one literal survive a scavenge, it allocates that literal's later
 * objects straight in the old generation. A request's objects die young, but a few (a ledger row
 * waiting for its lease to land, say) outlive a scavenge or two under load. With keyed streams,
 * some runs fell into a mode where about 9.7 KB of every request (its body, headers, upstream
 * call) reached the old generation (sampled with V8's heap profiler keeping only what no
 * scavenge freed); dead pretenured objects keep what they point at alive through scavenges
 * until the next full collection, which fits what we saw. Measured with keys-chat-stream at
 * c=64, three runs each: 4,907-5,408 streams a second with 202-212 scavenges (717-789 ms) and
 * 26-27 full collections in 8 s; with pretenuring off 7,182-7,433 with 248-258 scavenges
 * (419-444 ms) and 8-10. Either flag given on node's command line is kept.
 */
export function keepRequestsYoung(execArgv: readonly string[] = process.execArgv): void {
  if (setOnCommandLine(execArgv, 'allocation-site-pretenuring') || setOnCommandLine(execArgv, 'no-allocation-site-pretenuring')) return;
  setFlagsFromString('--no-allocation-site-pretenuring');
}

/** V8's default growth of the young generation (factor 2), for serving under load. */
export function releaseYoungGeneration(): void {
  setFlagsFromString('--semi-space-growth-factor=2');
}
