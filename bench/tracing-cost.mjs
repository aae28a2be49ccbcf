// What tracing costs per request, measured apart from the network: the spans one traced model
// request makes (server span continuing a traceparent, one target attempt, one upstream call
// with its traceparent for the upstream, GenAI attributes), ended, batched and exported over
// OTLP/HTTP (protobuf) to a receiver in this process. CPU time of this process per request.
// Tracing off makes none of this (the OpenTelemetry packages are not loaded): 0 us.
// Run after `npm run build`:  node bench/tracing-cost.mjs [requests]
// For the end-to-end figure, compare the gateway rows of
//   npm run bench -- --only openai-chat,openai-chat-traced
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './lib/children.mjs';

const N = Number(process.argv[2] ?? 20000);
const { OtelTracing } = await import(pathToFileURL(join(ROOT, 'dist', 'kernel', 'observability', 'otel-tracing.js')).href);

let exported = 0;
let attempts = 0;
const MARK = Buffer.from('attempt openai');
const receiver = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    exported += body.length;
    // Each traced request has one attempt span: count them to see that none was dropped.
    for (let at = body.indexOf(MARK); at >= 0; at = body.indexOf(MARK, at + 1)) attempts++;
    res.end();
  });
});
await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
const endpoint = `http://127.0.0.1:${receiver.address().port}`;

const headers = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', 'content-type': 'application/json' };

function oneRequest(tracing) {
  const server = tracing.startRequest('POST /v1/chat/completions', headers, {
    'http.request.method': 'POST',
    'http.route': '/v1/chat/completions',
    'url.path': '/v1/chat/completions',
    'gateway.request_id': 'f2b1c1d0-0000-4000-8000-000000000000',
  });
  const attempt = tracing.startSpan('attempt openai', 'internal', { 'gen_ai.system': 'openai', 'gateway.attempt': 1 }, server);
  const call = tracing.startSpan(
    'chat gpt-4o-mini',
    'client',
    { 'gen_ai.system': 'openai', 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o-mini', 'server.address': 'api.openai.com', 'server.port': 443 },
    attempt,
  );
  const traceparent = call.traceparent();
  if (!traceparent) throw new Error('no traceparent');
  call.setAttribute('http.response.status_code', 200);
  for (const span of [call, server]) {
    span.setAttribute('gen_ai.response.model', 'gpt-4o-mini-2024-07-18');
    span.setAttribute('gen_ai.usage.input_tokens', 9);
    span.setAttribute('gen_ai.usage.output_tokens', 9);
  }
  call.end();
  attempt.end();
  server.setAttribute('http.response.status_code', 200);
  server.end();
}

const rows = [];
for (const protocol of ['http/protobuf', 'http/json']) {
  const tracing = await OtelTracing.create({ endpoint, protocol });
  for (let i = 0; i < 2000; i++) oneRequest(tracing); // warm-up
  await tracing.shutdown();
  const measured = await OtelTracing.create({ endpoint, protocol });
  const before = process.cpuUsage();
  const sentBefore = exported;
  const attemptsBefore = attempts;
  for (let i = 0; i < N; i++) {
    oneRequest(measured);
    // Paced like a busy gateway (a few thousand spans a second), so the batch processor exports
    // everything (idle time costs no CPU; "requests exported" shows nothing was dropped).
    if (i % 128 === 127) await new Promise((r) => setTimeout(r, 20));
  }
  await measured.shutdown(); // the rest is serialized and sent
  const cpu = process.cpuUsage(before);
  rows.push({
    protocol,
    requests: N,
    spans: N * 3,
    'cpu us/req': ((cpu.user + cpu.system) / N).toFixed(1),
    'exported KiB': ((exported - sentBefore) / 1024).toFixed(0),
    'requests exported': attempts - attemptsBefore,
  });
}
receiver.close();
console.log(`tracing cost per traced request (3 spans), node ${process.version}; tracing off: 0 us (nothing loaded or made)`);
console.table(rows);
