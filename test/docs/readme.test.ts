import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { buildConfig, parseConfigText } from '../../src/kernel/config/load-config.js';
import { validatorFor } from '../../src/kernel/config/schema-validator.js';
import { ROOT } from '../helpers/built-gateway.js';
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
  /** The marker's words after "runnable" (e.g. "with the config above"). */
  note: string;
  line: number;
}

/** Every fenced block of the README that a `<!-- runnable ... -->` line marks. */
function runnableBlocks(): Block[] {
  const lines = README.split('\n');
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const marker = /^<!-- runnable(?::\s*(.*?))?\s*-->$/.exec(lines[i]!.trim());
    if (!marker) continue;
    const fence = /^```(\w+)$/.exec(lines[i + 1]?.trim() ?? '');
    if (!fence) throw new Error(`README.md:${i + 1}: a runnable marker must be followed by a fenced block`);
    const end = lines.findIndex((l, j) => j > i + 1 && l.trim() === '```');
    out.push({ lang: fence[1]!, code: lines.slice(i + 2, end).join('\n'), note: marker[1] ?? '', line: i + 2 });
    i = end;
  }
  return out;
}

/** A value for every ${NAME} a text references (names are kept in the value, so they show in failures). */
function fakeEnv(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const m of text.matchAll(/\$\{?([A-Z][A-Z0-9_]*)/g))
    env[m[1]!] = m[1] === 'GATEWAY_ADMIN_TOKEN' ? 'readme-test-admin-token-0123456789abcdef' : `test-${m[1]!.toLowerCase()}-0123456789`;
  return env;
}

const blocks = runnableBlocks();

describe('README: every block marked runnable works when pasted', () => {
  it('marks YAML, JSON and shell blocks', () => {
    const langs = new Set(blocks.map((b) => b.lang));
    for (const lang of ['yaml', 'json', 'sh']) expect(langs.has(lang), lang).toBe(true);
  });

  for (const block of blocks.filter((b) => b.lang === 'yaml')) {
    it(`README.md:${block.line}: the YAML config parses and is valid against schema/gateway.schema.json`, () => {
      const raw = parseConfigText(block.code, `README.md:${block.line}.yaml`);
      expect(() => buildConfig(raw, `README.md:${block.line}`, { env: fakeEnv(block.code) })).not.toThrow();
    });
  }

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
          const above = blocks
            .slice(0, index)
            .reverse()
            .find((b) => b.lang === 'yaml');
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
    .filter((l) => /^\| `[a-z-]+` \| `https?:\/\//.test(l))
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
