import { describe, expect, it } from 'vitest';
import { defineAuthMode, defineCheck, defineProvider, defineSlot, defineStage, errorShapes, openAICompatible, TARGET } from '../../src/plugin-api.js';
import normalizeError from '../../src/stages/normalize-error.js';
import type { Middleware } from '../../src/kernel/engine/stage.js';
import { GatewayError } from '../../src/contract/errors/gateway-error.js';
import { ROUTES } from '../../src/contract/routes.js';
import { makeServices } from '../helpers/services.js';
import { makeContext } from '../helpers/context.js';
import { StageRegistry } from '../../src/kernel/engine/stage-registry.js';
import { createCheckRegistry } from '../../src/features/guardrails/check-kind.js';
import { createAuthModeRegistry } from '../../src/features/auth/modes/auth-mode.js';
import { ProviderRegistry } from '../../src/features/models/providers/provider-registry.js';

const create = () => async (_ctx: unknown, next: () => Promise<void>) => next();

describe('the plugin API define* helpers', () => {
  it('return the definition itself, tagged with its kind, and the registries the gateway uses accept it', () => {
    const stage = { name: 'stamp', schema: { type: 'object' }, requires: [TARGET], create };
    const defined = defineStage(stage);
    expect(defined).toBe(stage);
    expect(defined.kind).toBe('stage');
    new StageRegistry().register(defined);

    const check = defineCheck({ name: 'deny-words', schema: { type: 'object' }, create: () => () => ({ passed: true, detail: 'ok' }) });
    expect(check.kind).toBe('guardrail-check');
    createCheckRegistry().register(check);

    const mode = defineAuthMode({ name: 'shared-secret', schema: { type: 'object' }, create: () => ({ authenticate: async () => ({ kind: 'shared-secret', id: 'x' }) }) });
    expect(mode.kind).toBe('auth-mode');
    createAuthModeRegistry().register(mode);

    const provider = defineProvider(
      openAICompatible({ name: 'acme-llm', displayName: 'Acme LLM', defaultBaseUrl: 'https://api.acme-llm.example/v1', operations: ['chat.completions'] }),
    );
    expect(provider.kind).toBe('provider');
    const providers = new ProviderRegistry();
    providers.register(provider);
    expect(providers.has('acme-llm')).toBe(true);
  });

  it('refuse a malformed definition where it is defined, with the message start-up would give', () => {
    expect(() => defineStage({ name: 'Bad Name', schema: {}, create })).toThrow('defineStage: stage name must be lower-case words joined by \'-\' (got "Bad Name")');
    expect(() => defineStage({ name: 'no-schema', create } as never)).toThrow('defineStage: stage no-schema has no config schema');
    expect(() => defineStage({ name: 'bad-slot', schema: {}, requires: ['target' as never], create })).toThrow(
      "defineStage: stage bad-slot requires[0] is not a slot (import the slots from 'pipeline-gateway/plugin', or make one with defineSlot)",
    );
    expect(() => defineStage({ name: 'bad-flag', schema: {}, terminal: 'yes' as never, create })).toThrow('defineStage: stage bad-flag terminal must be true or false');
    expect(() => defineCheck({ name: 'no-factory', schema: {} } as never)).toThrow('defineCheck: guardrail-check no-factory has no create(config) factory');
    expect(() => defineAuthMode({ name: 'x', schema: {}, create: () => ({}) as never, kind: 'stage' } as never)).toThrow('defineAuthMode: "stage" is not the kind auth-mode');
    expect(() => defineProvider({ name: 'nameless', schema: {}, create: () => ({}) as never } as never)).toThrow('defineProvider: provider nameless has no displayName');
  });

  it('defineSlot makes a slot of its own, once per name', () => {
    const mine = defineSlot<string>('plugin-api-test-slot', 'a test slot');
    expect(mine).toMatchObject({ name: 'plugin-api-test-slot', label: 'a test slot', index: expect.any(Number) });
    expect(() => defineSlot('plugin-api-test-slot')).toThrow('a context slot named plugin-api-test-slot is already defined');
    expect(() => defineSlot('Not A Name')).toThrow("a context slot name must be lower-case words joined by '-'");
    defineStage({ name: 'uses-own-slot', schema: {}, provides: [mine], create });
  });
});

describe('error shapes through the plugin API', () => {
  it("a plugin stage adds an error shape at create: normalize-error answers the plugin's routes in it, every other request as before", async () => {
    const services = makeServices();
    const envelope = defineStage({
      name: 'soap-envelope',
      schema: { type: 'object' },
      create(_config, stageServices) {
        errorShapes(stageServices).add((ctx, err) =>
          ctx.headers['x-soap'] === '1' ? { status: err.status, message: err.message, answerBody: () => ({ Envelope: { Fault: { faultstring: err.message } } }) } : undefined,
        );
        return async (_ctx, next) => next();
      },
    });
    envelope.create({}, services);
    const run = normalizeError.create({}, services) as Middleware;
    const chat = ROUTES.find((r) => r.method === 'POST' && r.path === '/v1/chat/completions')!;
    const answered = async (headers: Record<string, string>) => {
      const ctx = makeContext(chat, { headers });
      await run(ctx, () => Promise.reject(new GatewayError('not_found', 'No such model.')));
      return ctx.error!;
    };
    const soap = await answered({ 'x-soap': '1' });
    expect(soap.status).toBe(404);
    expect(soap.answerBody()).toEqual({ Envelope: { Fault: { faultstring: 'No such model.' } } });
    expect((await answered({})).answerBody()).toMatchObject({ status: 'failure', error: { code: 'not_found', message: 'No such model.' } });
  });
});
