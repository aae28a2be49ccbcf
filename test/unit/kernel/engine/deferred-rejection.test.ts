import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compose, type ChainStep } from '../../../../src/kernel/engine/compose.js';
import { compilePipelines } from '../../../../src/kernel/engine/pipeline-compiler.js';
import type { GatewayContext, RouteDef } from '../../../../src/kernel/engine/context.js';
import { defineStage, type Middleware } from '../../../../src/kernel/engine/stage.js';
import { GatewayError } from '../../../../src/contract/errors/gateway-error.js';
import { makeServices } from '../../../helpers/services.js';
import { makeContext } from '../../../helpers/context.js';

const CHAT: RouteDef = { method: 'POST', path: '/v1/chat/completions', key: 'POST /v1/chat/completions', body: 'json' };

/** A step that records its name, then goes on. */
const passes = (seen: string[], name: string, seesRejected?: boolean): ChainStep => ({
  run: (_ctx, next) => (seen.push(name), next()),
  ...(seesRejected ? { seesRejected } : {}),
});

const refusal = () => new GatewayError('invalid_api_key', 'No API key for openai.');

/** A step that defers `error` and goes on. */
const defers =
  (seen: string[], error: Error): Middleware =>
  (ctx, next) => {
    seen.push('defers');
    ctx.deferRejection(error);
    return next();
  };

const answer: ChainStep = { run: async (ctx) => void (ctx.response = { kind: 'empty', status: 204 }) };

describe('ctx.deferRejection', () => {
  it('runs only the steps that see rejected requests, then ends in the rejection', async () => {
    const seen: string[] = [];
    const error = refusal();
    const run = compose([passes(seen, 'before'), { run: defers(seen, error) }, passes(seen, 'validate'), passes(seen, 'count', true), passes(seen, 'route'), answer]);
    const ctx = makeContext(CHAT);
    await expect(run(ctx)).rejects.toBe(error);
    expect(seen).toEqual(['before', 'defers', 'count']);
    expect(ctx.response).toBeUndefined();
    expect(ctx.deferredRejection).toBe(error);
  });

  it('ends in the rejection when no step sees rejected requests (the chain has none after the deferring stage)', async () => {
    const seen: string[] = [];
    const error = refusal();
    const run = compose([{ run: defers(seen, error) }, passes(seen, 'validate'), answer]);
    await expect(run(makeContext(CHAT))).rejects.toBe(error);
    expect(seen).toEqual(['defers']);
  });

  it('the rejection is the answer whatever a step that sees it does: its own failure, or an answer without next()', async () => {
    const error = refusal();
    const throwsOwn: ChainStep = {
      seesRejected: true,
      run: async (ctx, next) => {
        ctx.responseHeaders['x-ratelimit-remaining'] = '0';
        throw new GatewayError('rate_limit_exceeded', 'Too many.', { headers: { 'retry-after': '9' } });
        await next();
      },
    };
    const ctx = makeContext(CHAT);
    await expect(compose([{ run: defers([], error) }, throwsOwn, answer])(ctx)).rejects.toBe(error);
    // What the step set on the answer stays (the limits' headers).
    expect(ctx.responseHeaders['x-ratelimit-remaining']).toBe('0');

    const throwsAtOnce: ChainStep = {
      seesRejected: true,
      run: () => {
        throw new Error('sync failure');
      },
    };
    await expect(compose([{ run: defers([], error) }, throwsAtOnce, answer])(makeContext(CHAT))).rejects.toBe(error);

    const answers: ChainStep = { seesRejected: true, run: async (c) => void (c.response = { kind: 'empty', status: 204 }) };
    await expect(compose([{ run: defers([], error) }, answers, answer])(makeContext(CHAT))).rejects.toBe(error);
  });

  it('keeps the first rejection deferred; a request without one runs every step', async () => {
    const first = refusal();
    const second = new GatewayError('missing_required_parameter', 'Later.');
    const ctx = makeContext(CHAT);
    await expect(compose([{ run: defers([], first) }, { run: defers([], second), seesRejected: true }, answer])(ctx)).rejects.toBe(first);

    const seen: string[] = [];
    const plain = makeContext(CHAT);
    await compose([passes(seen, 'a'), passes(seen, 'b', true), passes(seen, 'c'), answer])(plain);
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(plain.response).toEqual({ kind: 'empty', status: 204 });
    expect(plain.deferredRejection).toBeUndefined();
  });

  it('a step that sees rejected requests still has its when: (passed over when it does not match)', async () => {
    const seen: string[] = [];
    const error = refusal();
    const run = compose([{ run: defers(seen, error) }, { ...passes(seen, 'skipped', true), when: () => false }, passes(seen, 'count', true), answer]);
    await expect(run(makeContext(CHAT))).rejects.toBe(error);
    expect(seen).toEqual(['defers', 'count']);
  });
});

describe('seesRejected through compilePipelines', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gw-deferred-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("a stage definition's seesRejected reaches the compiled chain", async () => {
    const seen: string[] = [];
    const error = refusal();
    const services = makeServices();
    const recorder = (name: string, seesRejected?: boolean) =>
      defineStage({
        name,
        schema: { type: 'object' },
        ...(seesRejected ? { seesRejected } : {}),
        create: () => (_ctx: GatewayContext, next: () => Promise<void>) => (seen.push(name), next()),
      });
    services.stages.register(defineStage({ name: 'test-defers', schema: { type: 'object' }, create: () => defers(seen, error) }));
    services.stages.register(recorder('test-validate'));
    services.stages.register(recorder('test-count', true));
    services.stages.register(defineStage({ name: 'test-answer', schema: { type: 'object' }, terminal: true, create: () => answer.run }));
    writeFileSync(join(dir, 'all.yaml'), 'name: all\nroutes: ["*"]\nstages:\n  - test-defers\n  - test-validate\n  - test-count\n  - test-answer\n');
    const pipelines = compilePipelines({ shippedDir: dir, routes: [CHAT, { method: '*', path: '*', key: '*', body: 'none' }], stages: services.stages, services });
    await expect(pipelines.get(CHAT.key)!.run(makeContext(CHAT))).rejects.toBe(error);
    expect(seen).toEqual(['defers', 'test-count']);
  });
});

describe('ctx.reject', () => {
  const rejected = (status: number, detail?: Parameters<GatewayContext['reject']>[1]) => {
    try {
      makeContext(CHAT).reject(status, detail);
    } catch (err) {
      return err as GatewayError;
    }
    throw new Error('ctx.reject did not throw');
  };

  it('gives a 429 Retry-After: 1 when the stage names no wait', () => {
    const err = rejected(429, { message: 'Slow down.' });
    expect(err.status).toBe(429);
    expect(err.code).toBe('rate_limit_exceeded');
    expect(err.headers).toEqual({ 'retry-after': '1' });
    expect(err.retryAfter).toBe(1);
    expect(rejected(429).headers).toEqual({ 'retry-after': '1' });
  });

  it('takes retryAfter seconds, rounded up to whole seconds (at least 1); a value that is no number of seconds gives 1', () => {
    expect(rejected(429, { retryAfter: 30 }).headers).toEqual({ 'retry-after': '30' });
    expect(rejected(429, { retryAfter: 30 }).retryAfter).toBe(30);
    expect(rejected(429, { retryAfter: 2.2 }).headers).toEqual({ 'retry-after': '3' });
    expect(rejected(429, { retryAfter: 0 }).headers).toEqual({ 'retry-after': '1' });
    for (const bad of [-5, Number.NaN, Number.POSITIVE_INFINITY, '10' as never]) expect(rejected(429, { retryAfter: bad }).headers).toEqual({ 'retry-after': '1' });
  });

  it('another status carries Retry-After only when the stage gives one', () => {
    expect(rejected(403, { message: 'No.' }).headers).toBeUndefined();
    expect(rejected(503, { retryAfter: 5 }).headers).toEqual({ 'retry-after': '5' });
    expect(rejected(400, { retryAfter: -1 }).headers).toBeUndefined();
  });
});
