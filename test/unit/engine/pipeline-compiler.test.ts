import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { compilePipelines, PipelineError } from '../../../src/engine/pipeline-compiler.js';
import type { GatewayContext } from '../../../src/engine/context.js';
import { defineStage } from '../../../src/engine/stage.js';
import { PROVIDER_ROUTES } from '../../../src/http/route-table.js';
import { makeServices } from '../../helpers/services.js';

/** Stages that record what they saw, to watch a compiled chain run. */
function recorder(name: string, created: unknown[]) {
  return defineStage<{ label?: string; times?: number }>({
    name,
    schema: {
      type: 'object',
      additionalProperties: false,
      properties: { label: { type: 'string', default: name }, times: { type: 'integer', minimum: 1, default: 1 } },
    },
    create(config) {
      created.push(config);
      return async (ctx, next) => {
        (ctx.state.seen as string[]).push(config.label!);
        for (let i = 0; i < config.times!; i++) await next();
      };
    },
  });
}

function fakeContext(): GatewayContext {
  return { state: { seen: [] } } as unknown as GatewayContext;
}

describe('compilePipelines', () => {
  let dir: string;
  let services: ReturnType<typeof makeServices>;
  let created: unknown[];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gw-pipes-'));
    services = makeServices();
    created = [];
    services.stages.register(recorder('first', created));
    services.stages.register(recorder('second', created));
    services.stages.register(
      defineStage({
        name: 'explodes',
        schema: { type: 'object' },
        create() {
          throw new Error('needs a store, and there is none');
        },
      }),
    );
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function write(name: string, text: string): string {
    writeFileSync(join(dir, name), text);
    return relative(process.cwd(), join(dir, name)).startsWith('..') ? join(dir, name) : relative(process.cwd(), join(dir, name));
  }

  function problems(): string[] {
    try {
      compilePipelines(dir, services.stages, services);
    } catch (err) {
      if (err instanceof PipelineError) return err.problems;
      throw err;
    }
    return [];
  }

  it('assigns every route its pipeline: named routes first, "*" for the rest', () => {
    write('default.yaml', 'name: default\nroutes: ["*"]\nstages: [first]\n');
    write('embeddings.yaml', 'name: embeddings\nroutes: ["POST /v1/embeddings", "GET /v1/files/{file_id}"]\nstages: [second]\n');
    const byRoute = compilePipelines(dir, services.stages, services);
    expect(byRoute.size).toBe(PROVIDER_ROUTES.length);
    expect(byRoute.get('POST /v1/embeddings')!.name).toBe('embeddings');
    expect(byRoute.get('GET /v1/files/{file_id}')!.name).toBe('embeddings');
    expect(byRoute.get('POST /v1/chat/completions')!.name).toBe('default');
    expect(byRoute.get('POST /v1/chat/completions')!.stages).toEqual(['first']);
    expect(byRoute.get('POST /v1/embeddings')!.routes.map((r) => r.key)).toEqual(['POST /v1/embeddings', 'GET /v1/files/{file_id}']);
  });

  it('reads JSON pipeline files too', () => {
    write('default.json', JSON.stringify({ name: 'default', routes: ['*'], stages: ['first'] }));
    expect(compilePipelines(dir, services.stages, services).get('GET /v1/models')!.name).toBe('default');
  });

  it('runs the stages in order; a stage may call next() more than once', async () => {
    write('default.yaml', 'name: default\nroutes: ["*"]\nstages:\n  - first: { label: a, times: 2 }\n  - second: { label: b }\n');
    const pipeline = compilePipelines(dir, services.stages, services).get('POST /v1/completions')!;
    const ctx = fakeContext();
    await pipeline.run(ctx);
    expect(ctx.state.seen).toEqual(['a', 'b', 'b']);
  });

  it('creates each stage once per pipeline, with its config validated and defaults filled in', async () => {
    write('default.yaml', 'name: default\nroutes: ["*"]\nstages:\n  - first\n  - second: { times: 1 }\n');
    const pipeline = compilePipelines(dir, services.stages, services).get('POST /v1/completions')!;
    await pipeline.run(fakeContext());
    await pipeline.run(fakeContext());
    expect(created).toEqual([
      { label: 'first', times: 1 },
      { label: 'second', times: 1 },
    ]);
  });

  it('stops at an unknown stage, naming the file, the index and the known stages', () => {
    const file = write('default.yaml', 'name: default\nroutes: ["*"]\nstages: [first, teleport]\n');
    expect(problems()).toEqual([`${file}: stages[1]: unknown stage "teleport" (known: ${services.stages.names().join(', ')})`]);
  });

  it('stops at a stage config that fails the stage schema, naming the key', () => {
    const file = write('default.yaml', 'name: default\nroutes: ["*"]\nstages:\n  - first: { times: 0, colour: red }\n');
    expect(problems().sort()).toEqual([`${file}: stages[0].first.colour: is not a known key`, `${file}: stages[0].first.times: must be >= 1`].sort());
  });

  it('checks the built-in stages configs too', () => {
    const file = write('default.yaml', 'name: default\nroutes: ["*"]\nstages:\n  - authenticate: { providerKey: "yes" }\n');
    expect(problems()).toEqual([`${file}: stages[0].authenticate.providerKey: must be boolean`]);
  });

  it('reports a stage whose factory refuses its config', () => {
    const file = write('default.yaml', 'name: default\nroutes: ["*"]\nstages: [explodes]\n');
    expect(problems()).toEqual([`${file}: stages[0].explodes: needs a store, and there is none`]);
  });

  it('checks the shape of each pipeline file', () => {
    const a = write('a.yaml', 'name: Bad Name\nstages: []\n');
    const b = write('b.yaml', 'name: b\nroutes: ["*"]\nstages: [first]\nextra: 1\n');
    expect(problems().sort()).toEqual(
      [
        `${a}: routes: is required`,
        `${a}: name: must match the pattern ^[a-z0-9][a-z0-9-]*$`,
        `${a}: stages: must have at least 1 item`,
        `${b}: extra: is not a known key`,
      ].sort(),
    );
  });

  it('reports a file that is not YAML', () => {
    const file = write('default.yaml', 'name: default\nroutes: ["*"\nstages: [first]\n');
    const found = problems();
    expect(found).toHaveLength(1);
    expect(found[0]!.startsWith(`${file}: cannot be parsed: `)).toBe(true);
  });

  it('refuses routes that do not exist or are claimed twice, and a second "*"', () => {
    const a = write('a.yaml', 'name: a\nroutes: ["*", "POST /v1/embeddings"]\nstages: [first]\n');
    const b = write('b.yaml', 'name: b\nroutes: ["*", "POST /v1/embeddings", "POST /v1/teleport"]\nstages: [first]\n');
    const c = write('c.yaml', 'name: a\nroutes: ["GET /v1/models"]\nstages: [first]\n');
    expect(problems()).toEqual([
      `${b}: routes: "*" is already claimed by ${a}`,
      `${b}: routes: "POST /v1/embeddings" is already served by ${a}`,
      `${b}: routes: no such route "POST /v1/teleport"`,
      `${c}: name: another pipeline is already named a`,
    ]);
  });

  it('reports every problem of every file at once', () => {
    write('a.yaml', 'name: a\nroutes: ["*"]\nstages: [nope]\n');
    write('b.yaml', 'name: b\nroutes: ["GET /v1/models"]\nstages: [first: { times: "x" }]\n');
    expect(problems()).toHaveLength(2);
  });

  it('refuses a folder with no pipelines, or no folder', () => {
    expect(problems()).toEqual([`pipelines.dir: ${dir} holds no pipeline files (*.yaml, *.yml, *.json)`]);
    const missing = join(dir, 'missing');
    expect(() => compilePipelines(missing, services.stages, services)).toThrow(`pipelines.dir: the folder ${missing} cannot be read`);
  });

  it('ignores files that are not pipelines', () => {
    mkdirSync(join(dir, 'notes'));
    write('README.md', '# notes');
    write('default.yml', 'name: default\nroutes: ["*"]\nstages: [first]\n');
    expect(compilePipelines(dir, services.stages, services).size).toBe(PROVIDER_ROUTES.length);
  });
});
