import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { validatorFor } from '../../src/kernel/config/schema-validator.js';
import { ROOT, spawnGateway } from '../helpers/built-gateway.js';
import { FakeUpstream } from '../helpers/fake-upstream.js';
import { fixtureJson } from '../helpers/fixtures.js';
import { startGateway, type TestGateway } from '../helpers/start-gateway.js';
import { BUILTIN_PROVIDERS } from '../../src/features/models/providers/builtin-providers.js';
import { PROVIDERS } from '../../src/features/models/providers/provider-registry.js';

const PROVIDER_IDS = BUILTIN_PROVIDERS.map((p) => p.name);

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

interface Block {
  lang: string;
  code: string;
  /** The marker on the line before the fence: `runnable` or `fragment`, if any. */
  marker?: 'runnable' | 'fragment';
  /** The marker's words after the colon (e.g. "with the config above", or a fragment's reason). */
  note: string;
  /** The 1-based line of the fence. */
  line: number;
}

/**
 * Every fenced block of the README, with the `<!-- runnable[: note] -->` or
 * `<!-- fragment: reason -->` line before it, if any (the code dedented to the fence's indent).
 */
function fencedBlocks(): Block[] {
  const lines = README.split('\n');
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(\s*)```(\w*)$/.exec(lines[i]!);
    if (!fence) continue;
    const end = lines.findIndex((l, j) => j > i && l.trim() === '```');
    if (end < 0) throw new Error(`README.md:${i + 1}: a fence that is never closed`);
    const marker = /^<!-- (runnable|fragment)(?::\s*(.*?))?\s*-->$/.exec(lines[i - 1]?.trim() ?? '');
    const indent = fence[1]!.length;
    const code = lines
      .slice(i + 1, end)
      .map((l) => l.slice(Math.min(indent, l.length - l.trimStart().length)))
      .join('\n');
    out.push({ lang: fence[2]!, code, marker: marker?.[1] as Block['marker'], note: marker?.[2] ?? '', line: i + 1 });
    i = end;
  }
  for (let i = 1; i < lines.length; i++)
    if (/^<!-- (runnable|fragment)\b/.test(lines[i - 1]!.trim()) && !/^\s*```\w+$/.test(lines[i]!)) throw new Error(`README.md:${i}: a marker must be followed by a fenced block`);
  return out;
}

/** A YAML block that is a whole gateway config (`runnable`, or `runnable: after the commands above`). */
const isConfigBlock = (b: Block) => b.lang === 'yaml' && b.marker === 'runnable' && (b.note === '' || b.note === 'after the commands above');
/** A YAML block that is a pipeline file: `runnable: <path> with the config above`. */
const PIPELINE_NOTE = /^(\S+\.ya?ml) with the config above$/;

/** A value for every ${NAME} a text references (names are kept in the value, so they show in failures). */
function fakeEnv(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const m of text.matchAll(/\$\{?([A-Z][A-Z0-9_]*)/g))
    env[m[1]!] = m[1] === 'GATEWAY_ADMIN_TOKEN' ? 'readme-test-admin-token-0123456789abcdef' : `test-${m[1]!.toLowerCase()}-0123456789`;
  return env;
}

const allBlocks = fencedBlocks();
const blocks = allBlocks.filter((b) => b.marker === 'runnable');

/**
 * A folder laid out like the root of a clone for the config snippets (examples/ is there, as
 * relative paths resolve from the working directory), with `files` written into it.
 */
function cloneRoot(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'gw-readme-'));
  symlinkSync(join(ROOT, 'examples'), join(dir, 'examples'), 'dir');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** `node dist/main.js --check --config gateway.yaml` in `cwd`: its exit code and output. */
async function check(cwd: string, env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const proc = spawnGateway(['--check', '--config', 'gateway.yaml'], { cwd, env });
  const { code } = await proc.exited;
  return { code, out: `${proc.stdout()}${proc.stderr()}` };
}

/** The gateway config a YAML block completes or is: itself, or the nearest config block above a pipeline file. */
function configOf(block: Block): Block {
  if (isConfigBlock(block)) return block;
  const above = allBlocks.slice(0, allBlocks.indexOf(block)).reverse().find(isConfigBlock);
  if (!above) throw new Error(`README.md:${block.line}: no runnable config above`);
  return above;
}

describe('README: every YAML snippet is a config `--check` accepts, or says why not', () => {
  const yamlBlocks = allBlocks.filter((b) => b.lang === 'yaml' || b.lang === 'yml');

  it('marks each YAML block: a whole config, a pipeline file with the config above, or a fragment with its reason', () => {
    expect(yamlBlocks.length).toBeGreaterThan(5);
    for (const b of yamlBlocks) {
      const where = `README.md:${b.line}`;
      expect(b.lang, where).toBe('yaml');
      expect(b.marker, `${where}: put <!-- runnable --> or <!-- fragment: <why> --> before it`).toBeDefined();
      if (b.marker === 'fragment') expect(b.note.length, `${where}: a fragment says why it is not checked`).toBeGreaterThan(10);
      else expect(isConfigBlock(b) || PIPELINE_NOTE.test(b.note), `${where}: unknown note "${b.note}"`).toBe(true);
    }
  });

  for (const block of yamlBlocks.filter((b) => b.marker === 'runnable')) {
    const pipeline = PIPELINE_NOTE.exec(block.note)?.[1];
    const title = pipeline ? `the pipeline file ${pipeline}, with the config above` : 'the config';
    it(`README.md:${block.line}: ${title} passes --check, run from a clone's root`, async () => {
      const config = configOf(block);
      const dir = cloneRoot({ 'gateway.yaml': config.code, ...(pipeline ? { [pipeline]: block.code } : {}) });
      try {
        // A config naming a pipeline folder is checked with that folder made (empty, for the config alone).
        const pipelinesDir = (parseYaml(config.code) as { pipelines?: { dir?: string } } | null)?.pipelines?.dir;
        if (pipelinesDir) mkdirSync(join(dir, pipelinesDir), { recursive: true });
        if (pipeline) expect(dirname(join(dir, pipeline)), `${pipeline} is in the config's pipelines.dir`).toBe(join(dir, pipelinesDir ?? '-'));
        if (config.note === 'after the commands above') {
          const commands = allBlocks[allBlocks.indexOf(config) - 1]!;
          expect(commands.lang, 'the block above is shell commands').toBe('sh');
          execFileSync('bash', ['-eo', 'pipefail', '-c', commands.code], { cwd: dir, stdio: 'pipe', env: { PATH: process.env.PATH ?? '', HOME: dir } });
        }
        const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...fakeEnv(config.code) };
        const result = await check(dir, env);
        expect(result.out.trim(), result.out).toBe('ok');
        expect(result.code).toBe(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }, 60_000);
  }
});

describe('README: every block marked runnable works when pasted', () => {
  it('marks YAML, JSON and shell blocks', () => {
    const langs = new Set(blocks.map((b) => b.lang));
    for (const lang of ['yaml', 'json', 'sh']) expect(langs.has(lang), lang).toBe(true);
  });

  for (const block of blocks.filter((b) => b.lang === 'json')) {
    it(`README.md:${block.line}: the JSON routing config is valid against schema/routing.schema.json`, () => {
      const validate = validatorFor('routing.schema.json');
      const ok = validate(JSON.parse(block.code));
      expect(validate.errors ?? [], JSON.stringify(validate.errors)).toEqual([]);
      expect(ok).toBe(true);
    });
  }

  describe('shell blocks, run against a gateway whose providers are fakes', () => {
    let upstream: FakeUpstream;
    const gateways: TestGateway[] = [];
    beforeAll(async () => {
      upstream = await new FakeUpstream()
        .on('POST /v1/chat/completions', { json: fixtureJson('openai', 'chat') })
        .on('POST /openai/v1/chat/completions', { json: fixtureJson('openai', 'chat') })
        .start();
    });
    afterAll(async () => {
      for (const gw of gateways) await gw.close();
      await upstream?.stop();
    });

    const fakeProviders = () => ({ openai: { baseUrl: `${upstream.url}/v1` }, groq: { baseUrl: `${upstream.url}/openai/v1` } });

    blocks.forEach((block, index) => {
      if (block.lang !== 'sh') return;
      it(`README.md:${block.line}: the commands succeed`, async () => {
        let config: Record<string, unknown> = {};
        if (block.note === 'with the config above') {
          const above = blocks.slice(0, index).reverse().find(isConfigBlock);
          expect(above, 'a runnable YAML block above').toBeDefined();
          config = parseYaml(above!.code);
        } else expect(block.note).toBe('');
        const env = { ...fakeEnv(block.code), ...(config ? fakeEnv(JSON.stringify(config)) : {}) };
        const gw = await startGateway({ ...config, providers: { ...((config.providers as object) ?? {}), ...fakeProviders() } }, { env });
        gateways.push(gw);
        const address = gw.url.replace(/^http:\/\//, '');
        const script = block.code.replace(/(?:localhost|127\.0\.0\.1):8787/g, address);
        const before = upstream.requests.length;
        // curl fails on an HTTP error (and says why), so a command that gets a 4xx or 5xx fails the block.
        const prelude = 'set -eo pipefail\ncurl() { command curl --fail-with-body -sS "$@"; }\n';
        const result = await new Promise<{ code: number; out: string }>((resolve) => {
          execFile('bash', ['-c', prelude + script], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, timeout: 30_000 }, (err, stdout, stderr) =>
            resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}\n${stderr}` }),
          );
        });
        expect(result.code, result.out).toBe(0);
        // Requests that name a provider reached the fake, with the key the command gave.
        const chats = (block.code.match(/\/v1\/chat\/completions/g) ?? []).length;
        expect(upstream.requests.length - before).toBe(chats);
        if (block.code.includes('$OPENAI_API_KEY') && chats) {
          expect(upstream.requests.slice(before).some((r) => r.headers.authorization === `Bearer ${env.OPENAI_API_KEY}`)).toBe(true);
        }
      });
    });
  });
});

describe('README: the table of providers', () => {
  const rows = README.split('\n')
    .filter((l) => /^\| `[a-z0-9-]+` \| `https?:\/\//.test(l))
    .map((l) => l.split('|').map((c) => c.trim()))
    .filter((cells) => cells[3]!.startsWith('`<baseUrl>'));
  const table = new Map(rows.map((cells) => [cells[1]!.replace(/`/g, ''), { base: cells[2]!.replace(/`/g, ''), chat: cells[3]!.replace(/`/g, '') }]));

  it('lists every provider once', () => {
    expect([...table.keys()].sort()).toEqual([...PROVIDER_IDS].sort());
  });

  it("gives each provider's default base URL, and the address a chat request is sent to under a configured baseUrl", async () => {
    const fake = await new FakeUpstream().start();
    const providers: Record<string, unknown> = {};
    for (const id of PROVIDER_IDS) providers[id] = { baseUrl: `${fake.url}/base` };
    const defaults = await startGateway({});
    const configured = await startGateway({ providers });
    try {
      const registry = defaults.gateway.services.get(PROVIDERS)!;
      const values = { azure_resource_name: 'res', region: 'us-east-1', deployment: 'dep', project: 'proj', model: 'm1' };
      const fill = (text: string) => text.replace(/\{(\w+)\}/g, (_, k: string) => (k === 'region' ? `{region}` : ((values as Record<string, string>)[k] ?? `{${k}}`)));
      for (const id of PROVIDER_IDS) {
        const row = table.get(id)!;
        const base = registry.get(id)!.baseUrl;
        // Templated defaults ({region}, {azure_resource_name}) are shown as the provider fills them.
        const pattern = new RegExp(
          `^${row.base
            .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
            .replace(/\\?\{\w+\\?\}/g, '[^/]+')
            .replace(/\{\w+\}/g, '[^/]+')}$`,
        );
        expect(base === row.base || pattern.test(base), `${id}: ${base} vs ${row.base}`).toBe(true);
        // Providers without chat (embeddings and rerank APIs) show the path of their first operation.
        if (!registry.get(id)!.operations['chat.completions']) continue;

        const res = await fetch(`${configured.url}/v1/chat/completions`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-gateway-provider': id,
            'x-gateway-api-key': 'readme-provider-key-1234',
            'x-gateway-azure-resource-name': 'res',
            'x-gateway-azure-deployment-id': 'dep',
            'x-gateway-aws-access-key-id': 'AKIAREADMETEST000000',
            'x-gateway-aws-secret-access-key': 'readme-aws-secret-0123456789',
            'x-gateway-vertex-project-id': 'proj',
            'x-gateway-vertex-region': 'us-central1',
          },
          body: JSON.stringify({ model: 'm1', messages: [{ role: 'user', content: 'hi' }] }),
        });
        await res.arrayBuffer();
        const sent = fake.requests.at(-1)!.url;
        const expected = fill(row.chat).replace('<baseUrl>', '/base').replace('{region}', 'us-central1');
        const [path, query] = expected.split('?');
        expect(sent.split('?')[0], id).toBe(path);
        if (query) expect(sent.split('?')[1], id).toMatch(new RegExp(`^${query.replace('…', '.+')}$`));
      }
    } finally {
      await defaults.close();
      await configured.close();
      await fake.stop();
    }
  });
});

describe('README: the table of top-level config keys', () => {
  it('has a row for every top-level key of schema/gateway.schema.json', () => {
    const schema = JSON.parse(readFileSync(join(ROOT, 'schema', 'gateway.schema.json'), 'utf8')) as { properties: Record<string, unknown> };
    const start = README.indexOf('| Key | Main sub-keys | What it sets |');
    expect(start).toBeGreaterThan(0);
    const rows = README.slice(start).split('\n\n')[0]!.split('\n');
    const keys = rows.map((l) => /^\| `(\w+)` \|/.exec(l)?.[1]).filter(Boolean);
    expect(keys.sort()).toEqual(
      Object.keys(schema.properties)
        .filter((k) => k !== '$schema')
        .sort(),
    );
  });
});
