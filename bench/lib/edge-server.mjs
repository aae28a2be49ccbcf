// One edge for bench/edge-express.mjs: `node edge-server.mjs http|express`. Both read the JSON
// body of POST /v1/chat/completions themselves (as the gateway's body stage does) and answer
// the same small JSON; the only difference is what finds the route and wraps req/res: a Map
// lookup on node:http (the gateway's router for a route without parameters), or express's
// router with its req/res extensions. Prints "READY <port>".
import { createServer } from 'node:http';
import './exit-with-parent.mjs';

const ANSWER = Buffer.from(
  JSON.stringify({ id: 'chatcmpl-edge', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }] }),
);

/** Reads the body and answers: the work every route of a gateway does at least. */
function handle(req, res) {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': ANSWER.length, 'x-model': String(body.model) });
    res.end(ANSWER);
  });
}

let listener;
if (process.argv[2] === 'express') {
  const { default: express } = await import('express');
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.post('/v1/chat/completions', handle);
  app.use((_req, res) => res.status(404).end());
  listener = app;
} else {
  const routes = new Map([['POST /v1/chat/completions', handle]]);
  listener = (req, res) => {
    const q = req.url.indexOf('?');
    const route = routes.get(`${req.method} ${q < 0 ? req.url : req.url.slice(0, q)}`);
    if (route) route(req, res);
    else res.writeHead(404).end();
  };
}
const server = createServer({ keepAliveTimeout: 60_000 }, listener);
server.listen(0, '127.0.0.1', () => process.stdout.write(`READY ${server.address().port}\n`));
