import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { FakeUpstream } from '../helpers/fake-upstream.js';
import { fixtureJson } from '../helpers/fixtures.js';
import { startGateway, type TestGateway } from '../helpers/start-gateway.js';
import { PipelineError } from '../../src/gateway.js';
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

/** A plugin listed in the config adds a stage that pipelines name (examples/plugins/header-stamp.mjs). */
describe('plugins through the config', () => {
  let upstream: FakeUpstream;
  let gw: TestGateway;

  beforeAll(async () => {
    upstream = await new FakeUpstream().on('GET /v1/models', { json: fixtureJson('openai', 'models') }).start();
    gw = await startGateway({
      plugins: ['./examples/plugins/header-stamp.mjs'],
      pipelines: { dir: './examples/pipelines-with-plugin' },
      providers: { openai: { baseUrl: `${upstream.url}/v1` } },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.stop();
  });

  it('runs the plugin stage: its header is on the answer', async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'sk-plugin-test-0001', defaultHeaders: { 'x-gateway-provider': 'openai' } });
    const { data, response } = await client.models.list().withResponse();
    expect(data.data.map((m) => m.id)).toEqual(['gpt-4o-mini', 'text-embedding-3-small']);
    expect(response.headers.get('x-served-by')).toBe('gateway-example');
  });

  it('and on error answers', async () => {
    const res = await fetch(`${gw.url}/v1/models`);
    expect(res.status).toBe(400);
    expect(res.headers.get('x-served-by')).toBe('gateway-example');
  });

  it('the example pipeline is the shipped provider pipeline plus the plugin stage, after normalize-error', () => {
    const shipped = parseYaml(readFileSync('pipelines/provider.yaml', 'utf8'));
    const example = parseYaml(readFileSync('examples/pipelines-with-plugin/provider.yaml', 'utf8'));
    expect(example).toMatchObject({ name: shipped.name, extends: shipped.name });
    expect(shipped.stages[0]).toBe('normalize-error');
    expect(example.insert).toEqual([{ after: 'normalize-error', stages: [{ 'header-stamp': { header: 'x-served-by', value: 'gateway-example' } }] }]);
  });

  it('runs the plugin stage on every provider family, and on no other route', async () => {
    const embeddings = await fetch(`${gw.url}/v1/embeddings`, { method: 'POST', body: '{}' });
    expect(embeddings.status).toBe(400);
    expect(embeddings.headers.get('x-served-by')).toBe('gateway-example');
    const health = await fetch(`${gw.url}/health`);
    expect(health.status).toBe(200);
    expect(health.headers.get('x-served-by')).toBeNull();
  });

  it('a gateway without the plugin has no such header', async () => {
    const plain = await startGateway({ providers: { openai: { baseUrl: `${upstream.url}/v1` } } });
    try {
      const res = await fetch(`${plain.url}/v1/models`, { headers: { 'x-gateway-provider': 'openai', 'x-gateway-api-key': 'sk-plugin-test-0001' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-served-by')).toBeNull();
    } finally {
      await plain.close();
    }
  });

  it('a stage that throws is a 500 internal_error that reveals nothing; the log has the request id and no key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-plugin-throws-'));
    const key = 'plainsecretvalue-throwing-stage';
    try {
      writeFileSync(
        join(dir, 'explode.mjs'),
        `export const name = 'explode'; export const schema = { type: 'object' };
         export function create() { return async (ctx) => { throw new Error('cannot use key ' + ctx.headers['x-gateway-api-key']); }; }`,
      );
      writeFileSync(join(dir, 'models.yaml'), 'name: models\nextends: models\ninsert:\n  - after: authenticate\n    stages: [explode]\n');
      const broken = await startGateway({ plugins: [join(dir, 'explode.mjs')], pipelines: { dir } });
      try {
        const res = await fetch(`${broken.url}/v1/models`, { headers: { 'x-gateway-provider': 'openai', 'x-gateway-api-key': key } });
        const body: any = await res.json();
        expect(res.status).toBe(500);
        expect(body).toEqual({
          status: 'failure',
          message: 'The gateway hit an unexpected error.',
          error: { type: 'api_error', code: 'internal_error', message: 'The gateway hit an unexpected error.', param: null, provider: null },
        });
        const logged = broken.logs.records().find((r) => r.msg === 'unexpected error');
        expect(logged).toMatchObject({ requestId: res.headers.get('x-gateway-request-id'), err: { message: 'cannot use key [REDACTED]' } });
        expect(broken.logs.text).not.toContain(key);
      } finally {
        await broken.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('its config schema is enforced when the pipelines compile', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'gw-plugin-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    async function startupProblems(stageConfig: string): Promise<string[]> {
      writeFileSync(
        join(dir, 'chat.yaml'),
        `name: chat\nroutes: ["POST /v1/chat/completions"]\nstages:\n  - normalize-error\n  - header-stamp: ${stageConfig}\n  - authenticate\n  - route\n  - fallback\n  - forward\n`,
      );
      try {
        const started = await startGateway({ plugins: ['./examples/plugins/header-stamp.mjs'], pipelines: { dir } });
        await started.close();
        return [];
      } catch (err) {
        expect(err).toBeInstanceOf(PipelineError);
        return (err as PipelineError).problems;
      }
    }

    it.each([
      ['{ header: x-a }', ['stages[1].header-stamp.value: is required']],
      ['{ header: x-a, value: b, colour: red }', ['stages[1].header-stamp.colour: is not a known key']],
      ['{ header: "bad header", value: b }', ['stages[1].header-stamp.header: must match the pattern ^(?![Xx]-[Gg][Aa][Tt][Ee][Ww][Aa][Yy]-)[A-Za-z0-9-]+$']],
      ['{ header: x-gateway-provider, value: b }', ['stages[1].header-stamp.header: must match the pattern ^(?![Xx]-[Gg][Aa][Tt][Ee][Ww][Aa][Yy]-)[A-Za-z0-9-]+$']],
      ['{ header: x-a, value: "" }', ['stages[1].header-stamp.value: must not be empty']],
      ['{ header: x-a, value: "a\\tb" }', ['stages[1].header-stamp.value: must match the pattern ^[\\x20-\\x7e]*$']],
    ])('%s is refused', async (config, expected) => {
      const problems = await startupProblems(config);
      expect(problems.map((p) => p.slice(p.indexOf(': ') + 2))).toEqual(expected);
      expect(problems.every((p) => p.startsWith(join(dir, 'chat.yaml').replace(`${process.cwd()}/`, '')))).toBe(true);
    });

    it('a valid config starts', async () => {
      expect(await startupProblems('{ header: x-a, value: b }')).toEqual([]);
    });
  });
});
