import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { compilePipelines, PipelineError } from '../../../../src/kernel/engine/pipeline-compiler.js';
import type { GatewayContext, RouteDef } from '../../../../src/kernel/engine/context.js';
import { defineSlot } from '../../../../src/kernel/engine/slot.js';
import { defineStage } from '../../../../src/kernel/engine/stage.js';
import { makeServices } from '../../../helpers/services.js';
import meterStage from '../../../../src/features/governance/metering/meter-stage.js';
import responsesKept from '../../../../src/features/models/responses/responses-kept-stage.js';
import { makeContext } from '../../../helpers/context.js';

/** What the recorder stages saw, in order. */
const SEEN = defineSlot<string[]>('test-seen');
/** Slots for the order checks. */
const THING = defineSlot<string>('test-thing', 'a thing');
const WIDGET = defineSlot<string>('test-widget', 'a widget');

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
        ctx.get(SEEN)!.push(config.label!);
        for (let i = 0; i < config.times!; i++) await next();
      };
    },
  });
}

const route = (key: string): RouteDef => {
  if (key === '*') return { method: '*', path: '*', key, body: 'none' };
  const [method, path] = key.split(' ') as [RouteDef['method'], string];
  return { method, path, key, body: method === 'POST' ? 'json' : 'none' };
};
const TABLE = ['POST /v1/chat/completions', 'POST /v1/embeddings', 'GET /v1/files', 'GET /v1/files/{file_id}', 'GET /v1/models', 'GET /health', '*'].map(route);

function context(key: string, headers: Record<string, string> = {}, body?: string): GatewayContext {
  const ctx = makeContext(route(key), { headers, body });
  ctx.set(SEEN, []);
  return ctx;
}

describe('compilePipelines', () => {
  let shipped: string;
  let user: string;
  let services: ReturnType<typeof makeServices>;
  let created: unknown[];

  beforeEach(() => {
    shipped = mkdtempSync(join(tmpdir(), 'gw-pipes-'));
    user = mkdtempSync(join(tmpdir(), 'gw-user-pipes-'));
    services = makeServices();
    created = [];
    // The stages that write what forward reads of the metering and what route reads of a kept response (as the gateway registers them).
    services.stages.register(meterStage);
    services.stages.register(responsesKept);
    services.stages.register(recorder('first', created));
    services.stages.register(recorder('second', created));
    services.stages.register(recorder('third', created));
    services.stages.register(defineStage({ name: 'makes-thing', schema: { type: 'object' }, provides: [THING], create: () => async (ctx, next) => (ctx.set(THING, 'x'), next()) }));
    services.stages.register(defineStage({ name: 'needs-thing', schema: { type: 'object' }, requires: [THING], create: () => async (_c, next) => next() }));
    services.stages.register(defineStage({ name: 'needs-widget', schema: { type: 'object' }, requires: [WIDGET], create: () => async (_c, next) => next() }));
    services.stages.register(
      defineStage({ name: 'answer', schema: { type: 'object' }, terminal: true, create: () => async (ctx) => void (ctx.response = { kind: 'empty', status: 204 }) }),
    );
    services.stages.register(defineStage({ name: 'per-request', schema: { type: 'object' }, once: true, create: () => async (_c, next) => next() }));
    services.stages.register(defineStage({ name: 'per-attempt', schema: { type: 'object' }, repeats: true, create: () => async (_c, next) => next() }));
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
  afterEach(() => {
    rmSync(shipped, { recursive: true, force: true });
    rmSync(user, { recursive: true, force: true });
  });

  function write(dir: string, name: string, text: string): string {
    writeFileSync(join(dir, name), text);
    const rel = relative(process.cwd(), join(dir, name));
    return rel.startsWith('..') ? join(dir, name) : rel;
  }

  function compile(routes: RouteDef[] = TABLE, withUser = false) {
    return compilePipelines({ shippedDir: shipped, userDir: withUser ? user : undefined, routes, stages: services.stages, services });
  }

  function problems(withUser = false, routes: RouteDef[] = TABLE): string[] {
    try {
      compile(routes, withUser);
    } catch (err) {
      if (err instanceof PipelineError) return err.problems;
      throw err;
    }
    return [];
  }

  async function run(key: string, withUser = false, headers: Record<string, string> = {}, body?: string): Promise<string[]> {
    const ctx = context(key, headers, body);
    await compile(TABLE, withUser).get(key)!.run(ctx);
    return ctx.get(SEEN)!;
  }

  describe('routes', () => {
    it('gives each route the pipeline of its most specific pattern; "*" takes the rest, unknown routes included', () => {
      write(shipped, 'all.yaml', 'name: all\nroutes: ["*"]\nstages: [first, answer]\n');
      write(shipped, 'v1.yaml', 'name: v1\nroutes: ["* /v1/*"]\nstages: [first, answer]\n');
      write(shipped, 'files.yaml', 'name: files\nroutes: ["GET /v1/files/{id}", "GET /v1/files"]\nstages: [second, answer]\n');
      write(shipped, 'models.yaml', 'name: models\nroutes: ["GET /v1/models"]\nstages: [second, answer]\n');
      const byRoute = compile();
      expect(byRoute.size).toBe(TABLE.length);
      expect(Object.fromEntries([...byRoute].map(([k, p]) => [k, p.name]))).toEqual({
        'POST /v1/chat/completions': 'v1',
        'POST /v1/embeddings': 'v1',
        'GET /v1/files': 'files',
        'GET /v1/files/{file_id}': 'files',
        'GET /v1/models': 'models',
        'GET /health': 'all',
        '*': 'all',
      });
      expect(byRoute.get('GET /v1/files')!.routes.map((r) => r.key)).toEqual(['GET /v1/files', 'GET /v1/files/{file_id}']);
    });

    it('a literal segment beats a {param}, which beats a *; then a named method beats *', () => {
      write(shipped, 'a.yaml', 'name: a\nroutes: ["* /v1/files/{id}"]\nstages: [first, answer]\n');
      write(shipped, 'b.yaml', 'name: b\nroutes: ["GET /v1/files/{id}"]\nstages: [first, answer]\n');
      write(shipped, 'c.yaml', 'name: c\nroutes: ["GET /v1/*"]\nstages: [first, answer]\n');
      const byRoute = compile(TABLE.filter((r) => r.key !== '*'));
      expect(byRoute.get('GET /v1/files/{file_id}')!.name).toBe('b');
      expect(byRoute.get('GET /v1/models')!.name).toBe('c');
    });

    it('refuses a tie: two pipelines whose equally specific patterns claim one route', () => {
      const a = write(shipped, 'a.yaml', 'name: a\nroutes: ["GET /v1/files/{id}", "*"]\nstages: [first, answer]\n');
      const b = write(shipped, 'b.yaml', 'name: b\nroutes: ["GET /v1/files/{file_id}", "*"]\nstages: [first, answer]\n');
      expect(problems()).toEqual([
        `${b}: routes: "*" and "*" of ${a} (pipeline a) both claim POST /v1/chat/completions and neither is more specific`,
        `${b}: routes: "*" and "*" of ${a} (pipeline a) both claim POST /v1/embeddings and neither is more specific`,
        `${b}: routes: "*" and "*" of ${a} (pipeline a) both claim GET /v1/files and neither is more specific`,
        `${b}: routes: "GET /v1/files/{file_id}" and "GET /v1/files/{id}" of ${a} (pipeline a) both claim GET /v1/files/{file_id} and neither is more specific`,
        `${b}: routes: "*" and "*" of ${a} (pipeline a) both claim GET /v1/models and neither is more specific`,
        `${b}: routes: "*" and "*" of ${a} (pipeline a) both claim GET /health and neither is more specific`,
        `${b}: routes: "*" and "*" of ${a} (pipeline a) both claim unknown routes and neither is more specific`,
      ]);
    });

    it('refuses patterns that match no route, malformed ones, and a name taken twice', () => {
      const a = write(shipped, 'a.yaml', 'name: a\nroutes: ["POST /v1/teleport", "GET /v1/*/x"]\nstages: [first, answer]\n');
      const c = write(shipped, 'c.yaml', 'name: a\nroutes: ["GET /v1/models"]\nstages: [first, answer]\n');
      expect(problems()).toEqual([
        `${c}: name: another pipeline is already named a (${a})`,
        `${a}: routes: no such route "POST /v1/teleport"`,
        `${a}: routes[1]: "GET /v1/*/x" "*" may only end a path`,
      ]);
    });
  });

  describe('files', () => {
    it('reads JSON pipeline files too, and ignores files that are not pipelines', () => {
      mkdirSync(join(shipped, 'notes'));
      write(shipped, 'README.md', '# notes');
      write(shipped, 'all.json', JSON.stringify({ name: 'all', routes: ['*'], stages: ['first', 'answer'] }));
      expect(compile().get('GET /v1/models')!.name).toBe('all');
    });

    it('checks the shape of each pipeline file', () => {
      const a = write(shipped, 'a.yaml', 'name: Bad Name\nstages: []\n');
      const b = write(shipped, 'b.yaml', 'name: b\nroutes: ["*"]\nstages: [first, answer]\nextra: 1\n');
      const c = write(shipped, 'c.yaml', 'name: c\nroutes: ["*"]\n');
      const d = write(shipped, 'd.yaml', 'name: d\nstages: [first, answer]\n');
      const e = write(shipped, 'e.yaml', 'name: e\nroutes: ["*"]\nstages: [first, answer]\nremove: [first]\n');
      expect(problems().sort()).toEqual(
        [
          `${a}: name: must match the pattern ^[a-z0-9][a-z0-9-]*$`,
          `${a}: stages: must have at least 1 item`,
          `${b}: extra: is not a known key`,
          `${c}: stages: is required (or extends: <pipeline>)`,
          `${d}: routes: is required`,
          `${e}: remove: edits apply to extends, not to a full stages list`,
        ].sort(),
      );
    });

    it('reports a file that is not YAML', () => {
      const file = write(shipped, 'all.yaml', 'name: all\nroutes: ["*"\nstages: [first, answer]\n');
      const found = problems();
      expect(found).toHaveLength(1);
      expect(found[0]!.startsWith(`${file}: cannot be parsed: `)).toBe(true);
    });

    it('refuses a folder with no pipelines, or no folder', () => {
      expect(problems()).toEqual([`pipelines.dir: ${shipped} holds no pipeline files (*.yaml, *.yml, *.json)`]);
      const missing = join(shipped, 'missing');
      expect(() => compilePipelines({ shippedDir: shipped, userDir: missing, routes: TABLE, stages: services.stages, services })).toThrow(
        `pipelines.dir: the folder ${missing} cannot be read`,
      );
    });

    it('reports every problem of every file at once', () => {
      write(shipped, 'a.yaml', 'name: a\nroutes: ["*"]\nstages: [nope, answer]\n');
      write(shipped, 'b.yaml', 'name: b\nroutes: ["GET /v1/models"]\nstages: [first: { times: "x" }, answer]\n');
      expect(problems()).toHaveLength(2);
    });
  });

  describe('stages', () => {
    it('runs the stages in order; a stage may call next() more than once', async () => {
      write(shipped, 'all.yaml', 'name: all\nroutes: ["*"]\nstages:\n  - first: { label: a, times: 2 }\n  - second: { label: b }\n  - answer\n');
      expect(await run('POST /v1/chat/completions')).toEqual(['a', 'b', 'b']);
    });

    it('creates each stage once per pipeline, with its config validated and defaults filled in', async () => {
      write(shipped, 'all.yaml', 'name: all\nroutes: ["*"]\nstages:\n  - first\n  - second: { times: 1 }\n  - answer\n');
      const pipeline = compile().get('POST /v1/embeddings')!;
      await pipeline.run(context('POST /v1/embeddings'));
      await pipeline.run(context('POST /v1/embeddings'));
      expect(created).toEqual([
        { label: 'first', times: 1 },
        { label: 'second', times: 1 },
      ]);
    });

    it('stops at an unknown stage, naming the file, the index and the known stages', () => {
      const file = write(shipped, 'all.yaml', 'name: all\nroutes: ["*"]\nstages: [first, teleport, answer]\n');
      expect(problems()).toEqual([`${file}: stages[1]: unknown stage "teleport" (known: ${services.stages.names().join(', ')})`]);
    });

    it('stops at a stage config that fails the stage schema, naming the key', () => {
      const file = write(shipped, 'all.yaml', 'name: all\nroutes: ["*"]\nstages:\n  - first: { times: 0, colour: red }\n');
      expect(problems().sort()).toEqual([`${file}: stages[0].first.colour: is not a known key`, `${file}: stages[0].first.times: must be >= 1`].sort());
    });

    it('checks the built-in stages configs against their schemas in schema/stages/', () => {
      const file = write(shipped, 'all.yaml', 'name: all\nroutes: ["*"]\nstages:\n  - authenticate: { providerKey: "yes" }\n  - retry: { attempts: 9 }\n  - answer\n');
      expect(problems()).toEqual([`${file}: stages[0].authenticate.providerKey: must be boolean`, `${file}: stages[1].retry.attempts: must be <= 5`]);
    });

    it('reports a stage whose factory refuses its config', () => {
      const file = write(shipped, 'all.yaml', 'name: all\nroutes: ["*"]\nstages: [explodes, answer]\n');
      expect(problems()).toEqual([`${file}: stages[0].explodes: needs a store, and there is none`]);
    });
  });

  describe('order: what stages require and provide', () => {
    it('refuses a stage that needs a slot a later stage provides, naming the file, the stage and what it lacks', () => {
      const file = write(shipped, 'all.yaml', 'name: all\nroutes: ["*"]\nstages: [needs-thing, makes-thing, answer]\n');
      expect(problems()).toEqual([`${file}: stage needs-thing needs a thing, which makes-thing provides; makes-thing is not before it`]);
    });

    it('refuses a stage whose slot no stage of the pipeline provides, naming the stages that do', () => {
      const file = write(shipped, 'all.yaml', 'name: all\nroutes: ["*"]\nstages: [first, needs-thing, answer]\n');
      const widget = write(shipped, 'w.yaml', 'name: w\nroutes: ["GET /v1/models"]\nstages: [needs-widget, answer]\n');
      expect(problems()).toEqual([
        `${file}: stage needs-thing needs a thing, which makes-thing provides; the pipeline has no makes-thing before it`,
        `${widget}: stage needs-widget needs a widget, which no stage provides`,
      ]);
    });

    it('does not count a provider with when: (it may not run)', () => {
      const file = write(shipped, 'all.yaml', 'name: all\nroutes: ["*"]\nstages:\n  - makes-thing: {}\n    when: { method: POST }\n  - needs-thing\n  - answer\n');
      expect(problems()).toEqual([`${file}: stage needs-thing needs a thing, which makes-thing provides only when its when: matches; needs-thing may run without it`]);
    });

    it('refuses a once-per-request stage after one that repeats the rest per attempt', () => {
      const file = write(shipped, 'all.yaml', 'name: all\nroutes: ["*"]\nstages: [per-attempt, per-request, answer]\n');
      expect(problems()).toEqual([
        `${file}: stage per-request must run once per request, but per-attempt before it runs the rest of the pipeline once per attempt; put per-request before per-attempt`,
      ]);
    });

    it('checks the built-in stages: retry, guardrail, cache and forward need the target that fallback provides', () => {
      const file = write(shipped, 'all.yaml', 'name: all\nroutes: ["*"]\nstages: [normalize-error, authenticate, retry, route, fallback, forward]\n');
      const other = write(shipped, 'models.yaml', 'name: models\nroutes: ["GET /v1/models"]\nstages: [normalize-error, route, fallback, rate-limit, forward]\n');
      expect(problems()).toEqual([
        `${file}: stage retry needs a target, which fallback provides; fallback is not before it`,
        `${file}: stage route must run once per request, but retry before it runs the rest of the pipeline once per attempt; put route before retry`,
        `${file}: stage fallback must run once per request, but retry before it runs the rest of the pipeline once per attempt; put fallback before retry`,
        `${other}: stage route needs the provider credentials (x-gateway-provider and its key), which authenticate provides; the pipeline has no authenticate before it`,
        `${other}: stage rate-limit must run once per request, but fallback before it runs the rest of the pipeline once per attempt; put rate-limit before fallback`,
        `${other}: stage rate-limit needs an authenticated caller, which authenticate provides; the pipeline has no authenticate before it`,
      ]);
    });
  });

  describe('answers: every pipeline that serves a route holds a terminal stage', () => {
    it('refuses a pipeline without one, naming its file, the pipeline and its routes', () => {
      const file = write(shipped, 'v1.yaml', 'name: v1\nroutes: ["* /v1/*"]\nstages: [first, second]\n');
      write(shipped, 'rest.yaml', 'name: rest\nroutes: ["*"]\nstages: [first, answer]\n');
      expect(problems()).toEqual([
        `${file}: pipeline v1 has no stage that answers (such as forward); requests to POST /v1/chat/completions, POST /v1/embeddings, GET /v1/files and 2 more would end without an answer`,
      ]);
    });

    it('a user file that removes the answering stage of a shipped pipeline is named', () => {
      write(shipped, 'all.yaml', 'name: all\nroutes: ["*"]\nstages: [first, answer]\n');
      const file = write(user, 'all.yaml', 'name: all\nextends: all\nremove: [answer]\n');
      expect(problems(true)).toEqual([
        `${file}: pipeline all has no stage that answers (such as forward); requests to ${TABLE.map((r) => (r.key === '*' ? 'unknown routes' : r.key))
          .slice(0, 3)
          .join(', ')} and ${TABLE.length - 3} more would end without an answer`,
      ]);
    });

    it('an answering stage with when: does not count, and stages after an answering stage never run', () => {
      const file = write(shipped, 'all.yaml', 'name: all\nroutes: ["*"]\nstages:\n  - first\n  - answer: {}\n    when: { method: POST }\n');
      const models = write(shipped, 'models.yaml', 'name: models\nroutes: ["GET /v1/models"]\nstages: [first, answer, second, third]\n');
      expect(problems()).toEqual([
        `${file}: pipeline all answers only when the when: of answer matches; the other requests to POST /v1/chat/completions, POST /v1/embeddings, GET /v1/files and 3 more would end without an answer (remove the when: or add a stage that answers, such as forward)`,
        `${models}: stages second and third after answer never run: answer answers every request that reaches it`,
      ]);
    });

    it('refuses a stage that reads a slot no stage provides or writes; one some stage writes is fine', () => {
      const ORPHAN = defineSlot<string>('test-orphan', 'an orphan');
      services.stages.register(defineStage({ name: 'reads-orphan', schema: { type: 'object' }, reads: [ORPHAN, THING], create: () => async (_c, next) => next() }));
      const file = write(shipped, 'all.yaml', 'name: all\nroutes: ["*"]\nstages: [reads-orphan, answer]\n');
      expect(problems()).toEqual([`${file}: stage reads-orphan reads an orphan, which no stage provides or writes`]);
    });
  });

  describe('extends, insert, remove, configure', () => {
    beforeEach(() => {
      write(
        shipped,
        'base.yaml',
        'name: base\ndescription: The base.\nroutes: ["* /v1/*"]\nstages:\n  - first: { label: a }\n  - second: { label: b }\n  - third: { label: c }\n  - answer\n',
      );
      write(shipped, 'rest.yaml', 'name: rest\nroutes: ["*"]\nstages: [first, answer]\n');
    });

    it('starts from the base: its stages, routes and description, edited', async () => {
      write(
        shipped,
        'chat.yaml',
        [
          'name: chat',
          'extends: base',
          'routes: ["POST /v1/chat/completions"]',
          'insert:',
          '  - before: second',
          '    stages: [{ first: { label: x } }]',
          '  - after: third',
          '    stages: [{ second: { label: y } }]',
          'remove: [first]',
          'configure:',
          '  third: { label: z }',
        ].join('\n'),
      );
      const byRoute = compile();
      expect(byRoute.get('POST /v1/chat/completions')!.description).toBe('The base.');
      expect(byRoute.get('POST /v1/embeddings')!.name).toBe('base');
      expect(await run('POST /v1/chat/completions')).toEqual(['x', 'b', 'z', 'y']);
      expect(await run('POST /v1/embeddings')).toEqual(['a', 'b', 'c']);
    });

    it('a user file named like a shipped pipeline replaces it; extending its own name, it starts from the shipped one', async () => {
      write(user, 'base.yaml', 'name: base\nextends: base\ninsert:\n  - after: first\n    stages: [{ third: { label: inserted } }]\n');
      write(shipped, 'chat.yaml', 'name: chat\nextends: base\nroutes: ["POST /v1/chat/completions"]\nremove: [second]\n');
      expect(await run('POST /v1/embeddings', true)).toEqual(['a', 'inserted', 'b', 'c']);
      // Pipelines that extend the replaced one build on the replacement.
      expect(await run('POST /v1/chat/completions', true)).toEqual(['a', 'inserted', 'c']);
      expect(await run('POST /v1/embeddings', false)).toEqual(['a', 'b', 'c']);
    });

    it('names what an edit refers to that is not there', () => {
      const file = write(
        user,
        'x.yaml',
        'name: x\nextends: base\nroutes: ["GET /v1/models"]\ninsert:\n  - before: nope\n    stages: [first]\n  - after: third\n    before: first\n    stages: [first]\nremove: [ghost]\nconfigure:\n  phantom: {}\n',
      );
      const unknown = write(user, 'y.yaml', 'name: y\nextends: missing\n');
      const self = write(user, 'z.yaml', 'name: z\nextends: z\n');
      expect(problems(true)).toEqual([
        `${file}: remove[0]: base has no stage ghost`,
        `${file}: insert[0].before: the pipeline has no stage nope`,
        `${file}: insert[1]: give either before or after (one stage name)`,
        `${file}: configure.phantom: the pipeline has no stage phantom`,
        `${unknown}: extends: no pipeline named missing`,
        `${self}: extends: no pipeline named z to extend (a pipeline extends itself only to replace a shipped one)`,
      ]);
    });

    it('refuses a loop of extends', () => {
      const a = write(user, 'a.yaml', 'name: a\nextends: b\n');
      write(user, 'b.yaml', 'name: b\nextends: a\n');
      expect(problems(true)).toContain(`${a}: extends: b extends this pipeline again (a loop)`);
    });

    it('names the file and key of an edit whose config fails the schema', () => {
      const file = write(
        user,
        'c.yaml',
        'name: c\nextends: base\nroutes: ["GET /v1/models"]\nconfigure:\n  second: { times: 0 }\ninsert:\n  - after: second\n    stages: [{ first: { colour: red } }]\n',
      );
      expect(problems(true).sort()).toEqual([`${file}: configure.second.times: must be >= 1`, `${file}: insert[0].stages[0].first.colour: is not a known key`].sort());
    });
  });

  describe('when:', () => {
    beforeEach(() => {
      write(
        shipped,
        'all.yaml',
        [
          'name: all',
          'routes: ["*"]',
          'stages:',
          '  - first',
          '  - second: {}',
          '    when: { route: POST /v1/chat/completions }',
          '  - third: {}',
          '    when: { $or: [{ headers.x-tier: { $in: [pro, team] } }, { metadata.plan: gold }] }',
          '  - first: { label: model }',
          '    when: { params.model: { $regex: "^gpt-4" } }',
          '  - answer',
        ].join('\n'),
      );
    });

    it('runs a stage only for the requests its query matches', async () => {
      expect(await run('POST /v1/embeddings', false, {}, '{}')).toEqual(['first']);
      expect(await run('POST /v1/chat/completions', false, {}, '{}')).toEqual(['first', 'second']);
      expect(await run('GET /v1/models', false, { 'x-tier': 'team' })).toEqual(['first', 'third']);
      expect(await run('GET /v1/models', false, { 'x-gateway-metadata': '{"plan":"gold"}' })).toEqual(['first', 'third']);
      expect(await run('GET /v1/models', false, { 'x-gateway-metadata': 'not json' })).toEqual(['first']);
    });

    it('reads the JSON body for params.* queries', async () => {
      expect(await run('POST /v1/embeddings', false, {}, '{"model":"gpt-4o","input":"x"}')).toEqual(['first', 'model']);
      expect(await run('POST /v1/embeddings', false, {}, '{"model":"text-embedding-3","input":"x"}')).toEqual(['first']);
    });

    it('refuses a query with an unknown field or operator, naming the key', () => {
      const file = write(
        user,
        'bad.yaml',
        'name: bad\nroutes: ["GET /v1/models"]\nstages:\n  - first: {}\n    when: { colour: red }\n  - second: {}\n    when: { method: { $like: GET } }\n  - answer\n',
      );
      expect(problems(true)).toEqual([
        `${file}: stages[0].when.colour: a field must be route, method, path, params.<key>, metadata.<key>, headers.<name> or identity.<field>`,
        `${file}: stages[1].when.method.$like: unknown operator $like (known: $eq $ne $in $nin $gt $gte $lt $lte $regex $and $or)`,
      ]);
    });
  });
});
