// A small closed-loop load generator: N workers on one undici Pool (keep-alive, one connection per
// worker), each sending requests back to back until a deadline. A warm-up phase runs first and is
// thrown away. Latencies (to the last byte) and times to the first body byte are recorded with
// process.hrtime.bigint into preallocated arrays; percentiles are computed after the run.
// A caller that measures in slices passes its own Pool (openPool, kept open between slices), asks
// for the raw samples and merges the slices with mergeResults.
import { Pool } from 'undici';

const hr = process.hrtime.bigint;

/** Turns a scenario request into dispatch options (body serialized once, content-length set). */
export function prepareRequest(request) {
  const headers = { ...(request.headers ?? {}) };
  let body = request.body ?? null;
  if (body !== null && !Buffer.isBuffer(body) && typeof body !== 'string') {
    body = Buffer.from(JSON.stringify(body));
    if (!Object.keys(headers).some((k) => k.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  } else if (typeof body === 'string') {
    body = Buffer.from(body);
  }
  if (body !== null) headers['content-length'] = String(body.length);
  return { method: request.method ?? 'GET', path: request.path, headers, body };
}

/** One worker: a dispatch handler reused for every request it sends (no per-request closures). */
class Worker {
  constructor(pool, opts, cell) {
    this.pool = pool;
    this.opts = opts;
    this.cell = cell;
    this.resolve = undefined;
    this.t0 = 0n;
    this.first = 0n;
    this.status = 0;
    this.capture = undefined;
    this.headers = undefined;
    this.bytes = 0;
  }

  send() {
    return new Promise((resolve) => {
      this.resolve = resolve;
      this.first = 0n;
      this.status = 0;
      this.bytes = 0;
      this.t0 = hr();
      this.pool.dispatch(this.opts, this);
    });
  }

  onRequestStart() {}
  onResponseStart(_controller, statusCode, headers) {
    this.status = statusCode;
    if (this.capture) this.headers = headers;
  }
  onResponseData(_controller, chunk) {
    if (this.first === 0n) this.first = hr();
    this.bytes += chunk.length;
    if (this.capture) this.capture.push(Buffer.from(chunk));
  }
  onResponseEnd() {
    const end = hr();
    this.resolve(end);
  }
  onResponseError(_controller, err) {
    this.cell.lastError = err;
    this.status = -1;
    this.resolve(hr());
  }
}

/** Sorted-copy percentile (nearest rank) of the first n values, in ms. */
function percentile(sorted, n, p) {
  if (n === 0) return null;
  const rank = Math.min(n - 1, Math.max(0, Math.ceil((p / 100) * n) - 1));
  return sorted[rank] / 1e6;
}

function summarize(values, n) {
  const sorted = values.slice(0, n).sort();
  return { p50: percentile(sorted, n, 50), p90: percentile(sorted, n, 90), p99: percentile(sorted, n, 99), max: n ? sorted[n - 1] / 1e6 : null };
}

/** The Pool runCell drives `origin` with: one keep-alive connection per worker, no pipelining. */
export function openPool(origin, concurrency) {
  return new Pool(origin, {
    connections: concurrency,
    pipelining: 1,
    keepAliveTimeout: 60_000,
    keepAliveMaxTimeout: 600_000,
    headersTimeout: 60_000,
    bodyTimeout: 60_000,
  });
}

/**
 * Runs one cell: `concurrency` workers against `origin` for warmupMs, then measureMs.
 * Returns { requests, errors, statuses, bytes, seconds, rps, responseMBps (answer bodies), latency: {p50,p90,p99,max}, ttfb: {...}, sample: {status, headers, body} }.
 * Stops early when nothing but errors comes back (a dead target) or the arrays are full.
 * onMeasure('start' | 'end') is called around the measured phase; what it returns comes back as
 * result.marks.start / result.marks.end (the bench takes CPU snapshots there).
 * pool: an open Pool (openPool) to use instead of a new one; runCell leaves it open.
 * onMidway(inFlight): called once halfway through the measured phase with the number of requests
 * in flight (the bench reads a process's RSS there, with the streams open).
 * staggerMs: the workers of each phase start spread over this many ms (long streams: else all c
 * streams start in the same instant, and keep in step, a thundering herd no real traffic makes).
 * samples: true to also return result.samples = { latency, ttfb } (Float64Array of ns, one per answer).
 */
export async function runCell({ origin, request, concurrency, warmupMs, measureMs, onMeasure = () => undefined, onMidway, staggerMs = 0, pool: givenPool, samples = false }) {
  const opts = prepareRequest(request);
  const pool = givenPool ?? openPool(origin, concurrency);
  const capacity = Math.max(100_000, Math.ceil(measureMs * 60));
  const latency = new Float64Array(capacity);
  const ttfb = new Float64Array(capacity);
  const cell = { n: 0, bytes: 0, ok: 0, errors: 0, statuses: {}, lastError: undefined, stop: false, sample: undefined, inFlight: 0 };

  async function phase(untilNs, recording) {
    const workers = Array.from({ length: concurrency }, () => new Worker(pool, opts, cell));
    await Promise.all(
      workers.map(async (w, i) => {
        if (staggerMs > 0 && i > 0) await new Promise((r) => setTimeout(r, (i * staggerMs) / concurrency));
        while (!cell.stop && hr() < untilNs) {
          const wantSample = recording && cell.sample === undefined;
          if (wantSample) {
            w.capture = [];
            cell.sample = null; // one worker takes the sample
          }
          cell.inFlight++;
          const end = await w.send();
          cell.inFlight--;
          const ok = w.status >= 200 && w.status < 300;
          if (wantSample) {
            cell.sample = { status: w.status, headers: w.headers, body: Buffer.concat(w.capture) };
            w.capture = undefined;
          }
          if (!recording) {
            if (!ok) cell.warmupErrors = (cell.warmupErrors ?? 0) + 1;
            if (!ok && cell.warmupErrors >= 50 && !cell.ok) cell.stop = true;
            if (ok) cell.ok++;
            continue;
          }
          if (!ok) {
            cell.errors++;
            cell.statuses[w.status] = (cell.statuses[w.status] ?? 0) + 1;
            if (cell.errors >= 200 && cell.n === 0) cell.stop = true;
            continue;
          }
          if (cell.n >= capacity) {
            cell.stop = true;
            continue;
          }
          cell.bytes += w.bytes;
          latency[cell.n] = Number(end - w.t0);
          ttfb[cell.n] = Number((w.first || end) - w.t0);
          cell.n++;
        }
      }),
    );
  }

  try {
    const warmEnd = hr() + BigInt(Math.round(warmupMs * 1e6));
    await phase(warmEnd, false);
    cell.ok = 0;
    const marks = { start: onMeasure('start') };
    const started = hr();
    const midway = onMidway ? setTimeout(() => onMidway(cell.inFlight), measureMs / 2) : undefined;
    await phase(started + BigInt(Math.round(measureMs * 1e6)), true);
    clearTimeout(midway);
    const seconds = Number(hr() - started) / 1e9;
    marks.end = onMeasure('end');
    return {
      marks,
      requests: cell.n,
      errors: cell.errors + (cell.n === 0 && cell.warmupErrors ? cell.warmupErrors : 0),
      statuses: cell.statuses,
      lastError: cell.lastError ? String(cell.lastError.code ?? cell.lastError.message) : undefined,
      seconds,
      rps: cell.n / seconds,
      responseMBps: cell.bytes / 1e6 / seconds,
      bytes: cell.bytes,
      latency: summarize(latency, cell.n),
      ttfb: summarize(ttfb, cell.n),
      sample: cell.sample ?? undefined,
      ...(samples ? { samples: { latency: latency.slice(0, cell.n), ttfb: ttfb.slice(0, cell.n) } } : {}),
    };
  } finally {
    if (!givenPool) await pool.close().catch(() => undefined);
  }
}

function concat(arrays) {
  const out = new Float64Array(arrays.reduce((n, a) => n + a.length, 0));
  let at = 0;
  for (const a of arrays) {
    out.set(a, at);
    at += a.length;
  }
  return out;
}

/**
 * Merges the results of several runCell calls on one target (slices, each run with samples: true)
 * into one: counts, bytes and seconds summed, rates over the summed seconds, percentiles over all
 * the samples, the first sample answer, the last error; marks becomes the list of the slices' marks.
 */
export function mergeResults(results) {
  const statuses = {};
  for (const r of results) for (const [status, n] of Object.entries(r.statuses)) statuses[status] = (statuses[status] ?? 0) + n;
  const requests = results.reduce((n, r) => n + r.requests, 0);
  const bytes = results.reduce((n, r) => n + r.bytes, 0);
  const seconds = results.reduce((n, r) => n + r.seconds, 0);
  const latency = concat(results.map((r) => r.samples.latency));
  const ttfb = concat(results.map((r) => r.samples.ttfb));
  return {
    marks: results.map((r) => r.marks),
    requests,
    errors: results.reduce((n, r) => n + r.errors, 0),
    statuses,
    lastError: results.findLast((r) => r.lastError !== undefined)?.lastError,
    seconds,
    rps: seconds > 0 ? requests / seconds : 0,
    responseMBps: seconds > 0 ? bytes / 1e6 / seconds : 0,
    bytes,
    latency: summarize(latency, latency.length),
    ttfb: summarize(ttfb, ttfb.length),
    sample: results.find((r) => r.sample !== undefined)?.sample,
    samples: { latency, ttfb },
  };
}
