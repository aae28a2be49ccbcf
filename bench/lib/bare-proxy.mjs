// The floor for any Node gateway: node:http in, undici request out, no logic at all.
// Run as its own child process: node bench/lib/bare-proxy.mjs <upstream origin>
// Streams both bodies (request and answer) through unchanged, dropping hop-by-hop headers.
// Prints "READY <port>" once listening on 127.0.0.1; exits when the parent goes away or on SIGTERM.
import { createServer } from 'node:http';
import { Agent, request } from 'undici';

const origin = process.argv[2];
if (!origin) {
  process.stderr.write('usage: bare-proxy.mjs <upstream origin>\n');
  process.exit(2);
}

// The gateway's UpstreamClient pool settings (src/kernel/upstream/upstream-client.ts), without its
// limit of connections per origin (the gateway's is providers.<id>.connections): the floor opens
// as many upstream connections as it has callers (thousands of slow streams at once).
const agent = new Agent({ connections: null, keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000, pipelining: 1 });
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'host']);

function copyHeaders(from) {
  const out = {};
  for (const key in from) if (!HOP_BY_HOP.has(key)) out[key] = from[key];
  return out;
}

const server = createServer({ keepAliveTimeout: 65_000, requestTimeout: 0 }, (req, res) => {
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  request(origin + req.url, { dispatcher: agent, method: req.method, headers: copyHeaders(req.headers), body: hasBody ? req : null }).then(
    (up) => {
      res.writeHead(up.statusCode, copyHeaders(up.headers));
      // .pipe, not stream.pipeline: pipeline makes an AbortController and a DOMException per call.
      up.body.once('error', () => res.destroy());
      res.once('close', () => {
        if (!up.body.destroyed) up.body.destroy();
      });
      up.body.pipe(res);
    },
    () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"bare proxy: upstream failed"}}');
    },
  );
});
server.keepAliveTimeout = 65_000;
// The gateway's listen backlog (server.backlog, default 4096), so thousands of clients connecting at once meet the same queue.
server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => process.stdout.write(`READY ${server.address().port}\n`));

const stop = () => {
  server.close();
  server.closeAllConnections();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.on('disconnect', stop);
