#!/usr/bin/env node
// The admin lists at scale (issue 24, item 5), against the built gateway on PostgreSQL: 100,000
// keys written straight into the token table of a schema of its own (in batches, the columns the
// token store writes, random hashes), and a tool server (a Streamable HTTP MCP server in this
// process) that lists 10,000 tools. Times, one request after another:
//   GET /v1/auth/tokens?limit=20                       the first page (newest first)
//   GET /v1/auth/tokens?limit=20&order=asc             the first page, oldest first
//   GET /v1/auth/tokens?limit=20&after=<id>            a deep page (after the 50,000th key)
//   GET /v1/auth/tokens?limit=20&search=<text>         a search (a part of a user name)
//   GET /v1/auth/tokens?limit=20  (team_admin)         one team's first page (500 keys of the team)
//   GET /v1/admin/mcp/servers?limit=100, then
//   GET /v1/admin/mcp/servers/many/tools?limit=20       what the console's Tool servers page asks, one after the other
//   GET /v1/admin/mcp/servers/many/tools?after=<name>   a deep page of the tools (after the 5,000th)
//   GET /v1/admin/mcp/servers/many/tools?search=<text>  a search of the tools (a part of the name), and one deep in it
// and prints p50 / p95 / p99 in ms. The tool list is read from the server (tools/list, 1,000 tools a
// page) on the first need and kept by the gateway: the first request after a start (or after the
// server's list changed, or 30 s later) pays that read, measured once as "cold". The schema is
// dropped at the end (--keep keeps it).
// Run with `npm run bench:admin-lists` (builds dist/ first).
//
//   node bench/admin-lists.mjs [--keys 100000] [--tools 10000] [--n 200] [--tools-n 200] [--keep]
//   BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/test)
import { createServer } from 'node:http';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { request } from 'undici';
import { startGateway, stopAll } from './lib/children.mjs';
import { ADMIN_TOKEN } from './lib/gateway-key.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const KEYS = arg('--keys', 100_000);
const TOOLS = arg('--tools', 10_000);
const N = arg('--n', 200);
/** Requests of each tool-server line: --tools-n, default --n. */
const TOOLS_N = arg('--tools-n', N);
const keep = process.argv.includes('--keep');
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `bench_admin_lists_${randomBytes(4).toString('hex')}`;
const TEAMS = 200;

// The tool server: initialize, tools/list (TOOLS_PAGE tools a page, nextCursor), ping; notifications get 202.
const TOOLS_PAGE = 1000;
let toolLists = 0;
const toolList = Array.from({ length: TOOLS }, (_, i) => ({
  name: `tool_${String(i).padStart(5, '0')}`,
  description: `Bench tool number ${i}: does nothing in particular.`,
  inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
}));
const toolServer = createServer((req, res) => {
  if (req.method !== 'POST') return res.writeHead(405, { allow: 'POST' }).end();
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (message.id === undefined) return res.writeHead(202).end();
    let result;
    if (message.method === 'initialize') {
      result = { protocolVersion: message.params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'bench-many-tools', version: '1.0.0' } };
    } else if (message.method === 'tools/list') {
      const start = Number(message.params?.cursor ?? 0);
      if (start === 0) toolLists++;
      const next = start + TOOLS_PAGE;
      result = { tools: toolList.slice(start, next), ...(next < toolList.length ? { nextCursor: String(next) } : {}) };
    } else if (message.method === 'ping') result = {};
    const body = Buffer.from(
      JSON.stringify(result ? { jsonrpc: '2.0', id: message.id, result } : { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } }),
    );
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }).end(body);
  });
});
await new Promise((r) => toolServer.listen(0, '127.0.0.1', r));
const toolUrl = `http://127.0.0.1:${toolServer.address().port}/mcp`;

const db = new pg.Client({ connectionString: PG_URL });
await db.connect();
let gateway;
try {
  gateway = await startGateway({
    auth: { adminToken: ADMIN_TOKEN },
    storage: { type: 'postgres', url: PG_URL, schema },
    mcpServers: { many: { url: toolUrl } },
  });
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const get = async (path, headers = admin) => {
    const res = await request(`${gateway.url}${path}`, { headers });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode} ${text.slice(0, 300)}`);
    return text;
  };
  // The gateway made the tables at start; one key through the API (a team_admin of team7) shows the columns it writes.
  const ta = await request(`${gateway.url}/v1/auth/tokens`, {
    method: 'POST',
    headers: { ...admin, 'content-type': 'application/json' },
    body: JSON.stringify({ user: 'team7-admin@example.com', team: 'team7', roles: ['team_admin'] }),
  });
  const teamAdmin = await ta.body.json();
  if (ta.statusCode !== 201) throw new Error(`issuing the team_admin key: ${ta.statusCode} ${JSON.stringify(teamAdmin)}`);
  const scopes = JSON.stringify(teamAdmin.scopes);

  // KEYS keys in batches of 10,000, each batch made by the server from generate_series: several keys per
  // second (ties ordered by id), 200 teams, 7 organizations, a name, an email on every other, tool-server permissions on 1 in 200.
  const now = Math.floor(Date.now() / 1000);
  const loadStart = performance.now();
  const BATCH = 10_000;
  await db.query(`SET search_path TO "${schema}"`);
  for (let done = 0; done < KEYS; done += BATCH) {
    const n = Math.min(BATCH, KEYS - done);
    await db.query(
      `INSERT INTO gateway_auth_tokens (id, token_hash, user_id, team, email, name, roles, organization, scopes, permissions, created_at, expires_at,
         revoked_at, rotated_at, models, limits, budgets, metadata, blocked_at, previous_until, last4)
       SELECT 'tok_bench' || lpad(g::text, 7, '0') || substr(md5(g::text), 1, 6), md5(random()::text || g) || md5(g::text), 'user' || g || '@example.com',
         'team' || (g % ${TEAMS}), CASE WHEN g % 2 = 0 THEN 'person' || g || '@corp.example' END, 'Key ' || g, NULL, 'org' || (g % 7), $1,
         CASE WHEN g % 200 = 0 THEN '{"servers":["many"]}' END, $2::bigint - ($3::bigint - g) / 3, $2::bigint + 31536000,
         NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, substr(md5(g::text), 1, 4)
       FROM generate_series($4::bigint, $5::bigint) AS g`,
      [scopes, now - 1, KEYS, done + 1, done + n],
    );
  }
  await db.query('ANALYZE gateway_auth_tokens');
  const loadSeconds = (performance.now() - loadStart) / 1000;
  const deep = (await db.query('SELECT id FROM gateway_auth_tokens ORDER BY created_at DESC, id DESC OFFSET $1 LIMIT 1', [Math.floor(KEYS / 2)])).rows[0].id;
  // A deep place in the search's list (the keys with an email).
  const deepFound = (await db.query('SELECT id FROM gateway_auth_tokens WHERE email IS NOT NULL ORDER BY created_at DESC, id DESC OFFSET $1 LIMIT 1', [Math.floor(KEYS / 4)]))
    .rows[0].id;

  const cases = [
    ['keys: first page (limit=20)', '/v1/auth/tokens?limit=20'],
    ['keys: first page, order=asc', '/v1/auth/tokens?limit=20&order=asc'],
    [`keys: deep page (after the ${Math.floor(KEYS / 2).toLocaleString('en')}th)`, `/v1/auth/tokens?limit=20&after=${deep}`],
    ['keys: search=user4242 (limit=20)', '/v1/auth/tokens?limit=20&search=user4242'],
    ['keys: search=corp.example, deep', `/v1/auth/tokens?limit=20&search=corp.example&after=${deepFound}`],
    ['keys: team_admin first page', '/v1/auth/tokens?limit=20', { authorization: `Bearer ${teamAdmin.token}` }],
  ];
  // The tool lines: the console's Tool servers page (the servers, then the first page of the server's tools), a deep page, searches.
  const toolsPath = '/v1/admin/mcp/servers/many/tools';
  const deepTool = toolList.map((t) => t.name).sort()[Math.floor(TOOLS / 2)];
  const toolCases = [
    [`tools: servers + first tools page (${TOOLS.toLocaleString('en')})`, ['/v1/admin/mcp/servers?limit=100', `${toolsPath}?limit=20`]],
    [`tools: deep page (after the ${Math.floor(TOOLS / 2).toLocaleString('en')}th)`, [`${toolsPath}?limit=20&after=${deepTool}`]],
    ['tools: search=tool_042 (limit=20)', [`${toolsPath}?limit=20&search=tool_042`]],
    ['tools: search=7, deep', [`${toolsPath}?limit=20&search=7&after=tool_07000`]],
  ];
  // The first tools page after the start: the gateway reads the server's whole list (once; one sample).
  const readsBeforeCold = toolLists;
  const cold = [];
  for (const path of toolCases[0][1]) {
    const t = performance.now();
    await get(path);
    cold.push(performance.now() - t);
  }
  const listsBefore = toolLists;
  const rows = [];
  for (const [name, paths, headers] of [...cases.map(([n, p, h]) => [n, [p], h]), ...toolCases]) {
    const getAll = async () => {
      let last;
      for (const path of paths) last = await get(path, headers);
      return last;
    };
    for (let i = 0; i < 5; i++) await getAll(); // warm-up
    const body = JSON.parse(await getAll());
    const isTools = paths[0].startsWith('/v1/admin/mcp');
    const shown = isTools ? `${body.data.length} tools of ${body.total}, has_more ${body.has_more}` : `${body.data.length} keys, has_more ${body.has_more}`;
    const times = [];
    const count = isTools ? TOOLS_N : N;
    for (let i = 0; i < count; i++) {
      const t = performance.now();
      await getAll();
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    const at = (p) => times[Math.min(times.length - 1, Math.ceil((p / 100) * times.length) - 1)];
    rows.push({ name, p50: at(50), p95: at(95), p99: at(99), max: times[times.length - 1], shown: `${shown} (${count} requests)` });
  }
  console.log(`${KEYS.toLocaleString('en')} keys (${TEAMS} teams) loaded in ${loadSeconds.toFixed(1)} s; one request at a time; PostgreSQL ${PG_URL.replace(/\/\/[^@]*@/, '//')}`);
  console.log(`${'request'.padEnd(52)}${'p50 ms'.padStart(9)}${'p95 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'max ms'.padStart(9)}   answer`);
  for (const r of rows)
    console.log(`${r.name.padEnd(52)}${r.p50.toFixed(1).padStart(9)}${r.p95.toFixed(1).padStart(9)}${r.p99.toFixed(1).padStart(9)}${r.max.toFixed(1).padStart(9)}   ${r.shown}`);
  console.log(
    `tools, the first servers list and tools page after the key load: ${cold.map((ms) => `${ms.toFixed(1)} ms`).join(' + ')} (${listsBefore - readsBeforeCold ? `it read the server's ${TOOLS.toLocaleString('en')} tools, ${TOOLS_PAGE.toLocaleString('en')} a page` : 'the list read at connect was still kept'}); whole tool-list reads during the timed lines: ${toolLists - listsBefore}`,
  );
  const slow = rows.filter((r) => r.p95 >= 300);
  if (slow.length) console.log(`p95 at or over 300 ms: ${slow.map((r) => r.name).join('; ')}`);
} finally {
  if (gateway) await gateway.stop();
  await stopAll();
  if (!keep) await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await db.end();
  toolServer.close();
}
