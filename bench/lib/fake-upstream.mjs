// The bench's fake upstream, run as its own child process: node bench/lib/fake-upstream.mjs [scenario files...]
// As cheap as possible: every answer is a precomputed buffer. Prints "READY <port>" once listening
// on 127.0.0.1; exits when the parent goes away (IPC disconnect) or on SIGTERM.
//
// Built-in routes:
//   POST /v1/chat/completions         OpenAI chat JSON, or with "stream": true an SSE stream (20 content
//                                     chunks + finish + [DONE]; usage chunk when include_usage is true)
//   POST /v1/messages                 Anthropic Messages JSON, or with "stream": true its SSE events
//   POST /v1/audio/transcriptions     reads (and drops) the upload, answers {"text": ...}
//   POST /v1/audio/translations       same
//   GET  /v1/files/:id/content        FAKE_FILE_BYTES bytes (default 50 MiB) of application/octet-stream
//   ANY  /status/<code>/...           answers <code> with an OpenAI-shaped error (for fallback scenarios)
// How a stream is written (the SSE answers above): each event as its own write, back to back
// ("burst", as providers send them; the default), or by a path prefix:
//   /paced/<ms>/...                   each event its own write, <ms> apart (the first at once)
//   /one-write/...                    the whole stream in one write (the old mode, a named scenario)
//   GET  /_bench/stats                {"connections": n, "requests": n} so far (the bench reads it around
//                                     each row: new upstream connections per request show lost keep-alive)
// Scenario modules passed on the command line may add routes:
//   upstream: { 'METHOD /path/:param': (req, res, ctx) => ..., 'POST /big': { body: 'drain', handler } }
// ctx = { body, params, payloads }. `body` says what happens to the request body first: 'read' (the default
// for POST/PUT/PATCH: ctx.body is a Buffer), 'drain' (read and dropped, for big uploads) or 'stream' (the
// handler gets req unread).
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import * as payloads from './payloads.mjs';

const FILE_BYTES = Number(process.env.FAKE_FILE_BYTES ?? 50 * 1024 * 1024);

const JSON_HEADERS = { 'content-type': 'application/json', 'x-request-id': 'req_bench_fake_upstream' };
const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-request-id': 'req_bench_fake_upstream' };

/** True when a small JSON body sets "stream": true (no JSON.parse: a byte search). */
function wantsStream(body) {
  const at = body.indexOf('"stream"');
  if (at < 0) return false;
  let i = at + 8;
  while (i < body.length && (body[i] === 0x20 || body[i] === 0x3a || body[i] === 0x0a || body[i] === 0x09 || body[i] === 0x0d)) i++;
  return body[i] === 0x74; // t(rue)
}

function wantsUsage(body) {
  const at = body.indexOf('"include_usage"');
  if (at < 0) return false;
  let i = at + 15;
  while (i < body.length && (body[i] === 0x20 || body[i] === 0x3a)) i++;
  return body[i] === 0x74;
}

function sendJson(res, status, buf) {
  res.writeHead(status, { ...JSON_HEADERS, 'content-length': buf.length });
  res.end(buf);
}

/** A stream body's events, each its own Buffer ("...\n\n" included). */
function splitEvents(buf) {
  const out = [];
  let from = 0;
  for (;;) {
    const at = buf.indexOf('\n\n', from);
    if (at < 0) break;
    out.push(buf.subarray(from, at + 2));
    from = at + 2;
  }
  if (from < buf.length) out.push(buf.subarray(from));
  return out;
}
const EVENTS = new Map();
function eventsOf(buf) {
  let events = EVENTS.get(buf);
  if (!events) EVENTS.set(buf, (events = splitEvents(buf)));
  return events;
}

/**
 * An SSE answer as `mode` says: { delayMs: 0 } each event its own write back to back (burst),
 * { delayMs: n } each event its own write n ms apart, { oneWrite: true } the whole body at once.
 */
function sendSse(res, buf, mode) {
  res.writeHead(200, SSE_HEADERS); // no content-length: chunked, as real providers stream
  if (mode.oneWrite) {
    res.end(buf);
    return;
  }
  const events = eventsOf(buf);
  if (!mode.delayMs) {
    for (let i = 0; i < events.length - 1; i++) res.write(events[i]);
    res.end(events[events.length - 1]);
    return;
  }
  let i = 0;
  let timer;
  const next = () => {
    if (res.destroyed) return;
    if (i === events.length - 1) return void res.end(events[i]);
    res.write(events[i++]);
    timer = setTimeout(next, mode.delayMs);
  };
  res.once('close', () => clearTimeout(timer));
  next();
}

function sendFile(res, bytes) {
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': bytes });
  let left = bytes;
  const pump = () => {
    while (left > 0) {
      const n = Math.min(left, payloads.FILE_BLOCK.length);
      left -= n;
      const ok = res.write(n === payloads.FILE_BLOCK.length ? payloads.FILE_BLOCK : payloads.FILE_BLOCK.subarray(0, n));
      if (!ok && left > 0) return res.once('drain', pump);
    }
    res.end();
  };
  res.on('close', () => {
    left = 0;
  });
  pump();
}

const READS_BODY = new Set(['POST', 'PUT', 'PATCH']);

const builtins = {
  'POST /v1/chat/completions': (req, res, { body, sse }) => {
    if (wantsStream(body)) sendSse(res, wantsUsage(body) ? payloads.OPENAI_CHAT_SSE_USAGE : payloads.OPENAI_CHAT_SSE, sse);
    else sendJson(res, 200, payloads.OPENAI_CHAT_JSON);
  },
  'POST /v1/messages': (req, res, { body, sse }) => {
    if (wantsStream(body)) sendSse(res, payloads.ANTHROPIC_MESSAGE_SSE, sse);
    else sendJson(res, 200, payloads.ANTHROPIC_MESSAGE_JSON);
  },
  'POST /v1/audio/transcriptions': { body: 'drain', handler: (req, res) => sendJson(res, 200, payloads.TRANSCRIPTION_JSON) },
  'POST /v1/audio/translations': { body: 'drain', handler: (req, res) => sendJson(res, 200, payloads.TRANSCRIPTION_JSON) },
  'GET /v1/files/:id/content': (req, res) => sendFile(res, FILE_BYTES),
};

/** Routes "METHOD /a/:b/c" -> { exact: Map, patterns: [{ method, regex, names, handler }] }. */
function compileRoutes(table) {
  const exact = new Map();
  const patterns = [];
  for (const [key, entry] of Object.entries(table)) {
    const [method, path] = key.split(' ');
    const handler = typeof entry === 'function' ? { handler: entry, body: READS_BODY.has(method) ? 'read' : 'drain' } : { body: 'read', ...entry };
    if (!path.includes(':')) {
      exact.set(`${method} ${path}`, handler);
      continue;
    }
    const names = [];
    const source = path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:(\w+)/g, (_m, name) => {
      names.push(name);
      return '([^/]+)';
    });
    patterns.push({ method, regex: new RegExp(`^${source}$`), names, handler });
  }
  return { exact, patterns };
}

function findRoute(routes, method, path) {
  const handler = routes.exact.get(`${method} ${path}`);
  if (handler) return { handler, params: {} };
  for (const p of routes.patterns) {
    if (p.method !== method) continue;
    const m = p.regex.exec(path);
    if (!m) continue;
    const params = {};
    p.names.forEach((name, i) => (params[name] = decodeURIComponent(m[i + 1])));
    return { handler: p.handler, params };
  }
  return undefined;
}

const scenarioRoutes = {};
for (const file of process.argv.slice(2)) {
  const mod = await import(pathToFileURL(resolve(file)).href);
  Object.assign(scenarioRoutes, (mod.default ?? mod).upstream ?? {});
}
// Scenario routes first, so a scenario may replace a built-in answer.
const routeTables = [compileRoutes(scenarioRoutes), compileRoutes(builtins)];

const STATUS_PREFIX = /^\/status\/(\d{3})(\/|$)/;
const PACED_PREFIX = /^\/paced\/(\d{1,6})(?=\/)/;
const ONE_WRITE_PREFIX = '/one-write/';
const BURST = Object.freeze({ delayMs: 0, oneWrite: false });
const ONE_WRITE = Object.freeze({ delayMs: 0, oneWrite: true });

const stats = { connections: 0, requests: 0 };

function handle(req, res) {
  const url = req.url ?? '/';
  if (url === '/_bench/stats') {
    sendJson(res, 200, Buffer.from(JSON.stringify(stats)));
    return;
  }
  stats.requests++;
  const q = url.indexOf('?');
  let path = q >= 0 ? url.slice(0, q) : url;
  let sse = BURST;
  const paced = PACED_PREFIX.exec(path);
  if (paced) {
    sse = { delayMs: Number(paced[1]), oneWrite: false };
    path = path.slice(paced[0].length);
  } else if (path.startsWith(ONE_WRITE_PREFIX)) {
    sse = ONE_WRITE;
    path = path.slice(ONE_WRITE_PREFIX.length - 1);
  }
  const status = STATUS_PREFIX.exec(path);
  if (status) {
    req.resume();
    req.once('end', () => sendJson(res, Number(status[1]), payloads.openaiErrorJson(Number(status[1]))));
    return;
  }
  let found;
  for (const table of routeTables) if ((found = findRoute(table, req.method, path))) break;
  if (!found) {
    req.resume();
    sendJson(res, 404, payloads.openaiErrorJson(404));
    return;
  }
  const { handler, body } = found.handler;
  const ctx = { body: undefined, params: found.params, payloads, sse };
  if (body === 'stream') {
    handler(req, res, ctx);
    return;
  }
  if (body === 'drain') {
    req.resume();
    req.once('end', () => handler(req, res, ctx));
    return;
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.once('end', () => {
    ctx.body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
    handler(req, res, ctx);
  });
}

const server = createServer({ keepAliveTimeout: 65_000, requestTimeout: 0 }, (req, res) => {
  try {
    handle(req, res);
  } catch (err) {
    if (!res.headersSent) sendJson(res, 500, payloads.openaiErrorJson(500));
    process.stderr.write(`fake upstream: ${err?.stack ?? err}\n`);
  }
});
server.keepAliveTimeout = 65_000;
server.on('connection', () => stats.connections++);
server.listen({ port: Number(process.env.FAKE_PORT ?? 0), host: '127.0.0.1', backlog: 4096 }, () => {
  process.stdout.write(`READY ${server.address().port}\n`);
});

const stop = () => {
  server.close();
  server.closeAllConnections();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.on('disconnect', stop);
process.on('uncaughtException', (err) => {
  process.stderr.write(`fake upstream: ${err?.stack ?? err}\n`);
});
