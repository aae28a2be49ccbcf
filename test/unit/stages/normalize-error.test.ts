import { describe, expect, it } from 'vitest';
import normalizeErrorStage from '../../../src/stages/normalize-error.js';
import { errorShapes, ErrorShapes } from '../../../src/kernel/engine/error-shapes.js';
import { UPSTREAM } from '../../../src/kernel/engine/report.js';
import type { Middleware } from '../../../src/kernel/engine/stage.js';
import { GatewayError } from '../../../src/contract/errors/gateway-error.js';
import { ROUTES } from '../../../src/contract/routes.js';
import { anthropicErrorShape } from '../../../src/features/models/messages/anthropic-error.js';
import { makeContext } from '../../helpers/context.js';
import { makeServices } from '../../helpers/services.js';

const MESSAGES = ROUTES.find((r) => r.method === 'POST' && r.path === '/v1/messages')!;
const CHAT = ROUTES.find((r) => r.method === 'POST' && r.path === '/v1/chat/completions')!;

/** The error normalize-error leaves on ctx when the rest of the pipeline throws `thrown`. */
async function answered(withShape: boolean, route: typeof MESSAGES, headers: Record<string, string>, thrown: unknown, upstream?: string) {
  const services = makeServices();
  if (withShape) errorShapes(services).add(anthropicErrorShape);
  const run = normalizeErrorStage.create({}, services) as Middleware;
  const ctx = makeContext(route, { headers });
  if (upstream) ctx.set(UPSTREAM, upstream);
  await run(ctx, () => Promise.reject(thrown));
  return ctx.error!;
}

describe('error shapes', () => {
  it('the first shaper that claims a request shapes its error; an unclaimed error keeps its own body', () => {
    const shapes = new ErrorShapes();
    const err = new GatewayError('not_found', 'gone');
    const ctx = makeContext(CHAT);
    expect(shapes.shape(ctx, err)).toBe(err);
    const wrapped = { ...err, status: 404, message: 'wrapped', answerBody: () => ({ wrapped: true }) };
    shapes.add(() => undefined);
    shapes.add(() => wrapped);
    shapes.add(() => {
      throw new Error('never asked: an earlier shaper claimed the request');
    });
    expect(shapes.shape(ctx, err)).toBe(wrapped);
  });

  it("normalize-error answers in the shape the models feature registered (Anthropic's on /v1/messages with anthropic-version)", async () => {
    const err = await answered(true, MESSAGES, { 'anthropic-version': '2023-06-01' }, new GatewayError('not_found', 'No such model.'));
    expect(err.status).toBe(404);
    expect(err.answerBody()).toEqual({ type: 'error', error: { type: 'not_found_error', message: 'No such model.' }, request_id: 'req-test' });
  });

  it("keeps the contract's body where no shape claims the request (no anthropic-version, another route, no shape registered)", async () => {
    const contract = {
      status: 'failure',
      message: 'No such model.',
      error: { type: 'invalid_request_error', code: 'not_found', message: 'No such model.', param: null, provider: null },
    };
    for (const [withShape, route, headers] of [
      [true, MESSAGES, {}],
      [true, CHAT, { 'anthropic-version': '2023-06-01' }],
      [false, MESSAGES, { 'anthropic-version': '2023-06-01' }],
    ] as const) {
      const err = await answered(withShape, route, headers, new GatewayError('not_found', 'No such model.'));
      expect(err.answerBody()).toEqual(contract);
    }
  });

  it('a raw failure names the upstream the request was last sent to', async () => {
    const timeout = Object.assign(new Error('headers timeout'), { code: 'UND_ERR_HEADERS_TIMEOUT' });
    expect(await answered(false, CHAT, {}, timeout, 'groq')).toMatchObject({ code: 'request_timeout', provider: 'groq', message: 'groq did not answer in time.' });
    expect(await answered(false, CHAT, {}, timeout)).toMatchObject({ code: 'request_timeout', message: 'The upstream did not answer in time.' });
  });
});
