import type { CredentialOperationsStageConfig } from '../../../generated/stages/credential-operations.js';
import { firstProblem, schemaDocument, validatorFor } from '../../../kernel/config/schema-validator.js';
import type { GatewayContext } from '../../../kernel/engine/context.js';
import { readRequestBytes, BODY } from '../../../kernel/engine/request-body.js';
import { defineStage } from '../../../kernel/engine/stage.js';
import { badRequest, GatewayError, notFound, semanticError } from '../../../contract/errors/gateway-error.js';
import type { GatewayRouteSpec } from '../../../contract/routes.js';
import { ADMIN } from '../../auth/index.js';
import { PROVIDERS, type ProviderRegistry, type ResolvedTarget, type HeldCredential } from '../../models/index.js';
import type { UpstreamClient } from '../../../kernel/upstream/upstream-client.js';
import { AUDIT } from '../audit/audit-services.js';
import { CREDENTIAL_VAULT } from '../governance-services.js';
import { credentialProblems, providerFields } from './credential-fields.js';
import { GATEWAY_KEY } from '../../../features/governance/governance-slots.js';
import { RESPONSE } from '../../../kernel/engine/context.js';

type AdminContext = GatewayContext<GatewayRouteSpec>;

async function jsonObject(ctx: AdminContext, limit: number): Promise<Record<string, unknown>> {
  const raw = await readRequestBytes(ctx.req, limit).catch((err: Error & { status?: number }) => {
    throw err.status === 400 && /larger than/.test(err.message) ? badRequest('The request body is too large.', 'body') : err;
  });
  let body: unknown;
  try {
    body = raw.length ? JSON.parse(raw.toString('utf8')) : undefined;
  } catch {
    throw badRequest('The request body is not valid JSON.', 'body');
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('The request body must be a JSON object.', 'body');
  return body as Record<string, unknown>;
}

/** What a connection test found: never the key, nor the upstream's message (which may quote the key). */
interface ConnectionTest {
  ok: boolean;
  /** The upstream's HTTP status; null: no answer (connection refused, timeout). */
  status: number | null;
  latency_ms: number;
  /** The gateway's error code for a failed test (invalid_api_key, connection_error, timeout...); null when ok. */
  error_type: string | null;
  /** How many models the provider listed (ok only). */
  models: number | null;
  /** What was called: the provider's model list (the method and path, not the address). */
  checked: string;
}

/**
 * A connection test of a held credential: the provider's model list (GET .../models), built by the
 * provider's own adapter with the credential's key and settings and sent to the provider's
 * address (its configured base URL or default: never an address a caller chose), as routing would.
 */
async function testConnection(held: HeldCredential, providers: ProviderRegistry, upstream: UpstreamClient, timeoutMs: number): Promise<ConnectionTest> {
  const provider = providers.get(held.provider);
  const adapter = provider?.operations['models.list'];
  if (!provider || !adapter) throw semanticError(`There is no connection test for provider ${held.provider}: it has no model list to call.`, 'name');
  const target: ResolvedTarget = { provider: held.provider, apiKey: held.apiKey, options: { ...held.options }, credential: held.name };
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  let path = '/models';
  try {
    const signal = AbortSignal.timeout(timeoutMs);
    const request = await adapter.request(
      { operation: 'models.list', body: undefined, stream: false, target, apiKey: held.apiKey, params: {}, query: new URLSearchParams(), hasQuery: false, headers: {}, signal },
      provider,
    );
    path = new URL(request.url).pathname;
    const res = await upstream.send(request, { signal, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    const chunks: Buffer[] = [];
    let bytes = 0;
    for await (const chunk of res.body) {
      bytes += (chunk as Buffer).length;
      if (bytes <= 4 << 20) chunks.push(chunk as Buffer);
    }
    const body = Buffer.concat(chunks);
    const checked = `GET ${path}`;
    if (res.statusCode >= 200 && res.statusCode < 300) {
      let models: number | null = null;
      try {
        const parsed = JSON.parse(body.toString('utf8')) as { data?: unknown; models?: unknown };
        const list = Array.isArray(parsed.data) ? parsed.data : Array.isArray(parsed.models) ? parsed.models : undefined;
        models = list ? list.length : null;
      } catch {
        models = null;
      }
      return { ok: true, status: res.statusCode, latency_ms: latency(), error_type: null, models, checked };
    }
    const error = provider.mapError(res.statusCode, body, res.headers);
    return { ok: false, status: res.statusCode, latency_ms: latency(), error_type: error.code, models: null, checked };
  } catch (err) {
    const e = err as Error & { code?: string; name?: string };
    const timedOut = e.name === 'TimeoutError' || e.name === 'AbortError' || /Timeout/i.test(e.code ?? '');
    if (err instanceof GatewayError) return { ok: false, status: null, latency_ms: latency(), error_type: err.code, models: null, checked: `GET ${path}` };
    return { ok: false, status: null, latency_ms: latency(), error_type: timedOut ? 'timeout' : 'connection_error', models: null, checked: `GET ${path}` };
  }
}

/**
 * The held credentials of the admin API (contract section 8): GET /v1/admin/credentials lists
 * them (the config file's with `source: file`, the API's with `source: api`; never a value,
 * only the last 4 characters), POST stores one sealed with AES-256-GCM (201), DELETE
 * /v1/admin/credentials/{name} removes one the API created (rotating one is a delete and a
 * create). POST /v1/admin/credentials/{name}/test calls the provider's model list with it and
 * answers ok, the status and the latency (never the key or the upstream's message). Needs the
 * admin credential. Writes are kept in the audit log without any value.
 */
export default defineStage<CredentialOperationsStageConfig, AdminContext>({
  name: 'credential-operations',
  description: 'Lists, creates and deletes the provider credentials the gateway holds (the admin API).',
  schema: schemaDocument('stages/credential-operations.schema.json'),
  requires: [ADMIN],
  once: true,
  reads: [BODY, GATEWAY_KEY],
  writes: [RESPONSE],
  terminal: true,
  create(config, services) {
    const vault = services.require(CREDENTIAL_VAULT);
    const providers = services.require(PROVIDERS);
    const logger = services.logger;
    // Every write is kept in the audit log (GET /v1/admin/audit) as the resource the API shows: never a value.
    const audit = services.get(AUDIT);
    const validate = validatorFor('requests/admin-credentials-create.schema.json');
    const limit = config.bodyLimit ?? 65_536;
    const testTimeout = 10_000;
    const json = (ctx: AdminContext, status: number, body: unknown) => {
      ctx.response = { kind: 'json', status, body };
    };
    return async (ctx) => {
      switch (ctx.endpoint.operation) {
        case 'admin.credentials.list':
          return json(ctx, 200, { object: 'list', data: vault.list(), has_more: false });
        case 'admin.credentials.create': {
          const body = await jsonObject(ctx, limit);
          if (!validate(body)) {
            const problem = firstProblem(validate.errors);
            throw badRequest(`${problem?.key || 'body'}: ${problem?.message ?? 'is invalid'}`, problem?.key || 'body');
          }
          const name = body.name as string;
          const provider = body.provider as string;
          const fields = providerFields(body);
          const problems = credentialProblems(provider, fields, providers);
          if (problems.length) {
            const param = problems[0]!.slice(0, problems[0]!.indexOf(':'));
            throw badRequest(problems.join('; '), param);
          }
          ctx.secrets.push(...Object.values(fields).filter((v): v is string => typeof v === 'string'));
          const created = await vault.create(name, provider, fields, body.description as string | undefined);
          if (created === 'no-key') {
            throw new GatewayError('semantic_error', 'This gateway has no secrets.key (or GATEWAY_SECRET_KEY): it cannot store credentials.', { param: 'secrets.key' });
          }
          if (created === 'exists') throw semanticError(`A credential named ${name} exists already; delete it first.`, 'name');
          logger.info({ audit: 'credential.create', requestId: ctx.id, credential: name, provider }, 'credential stored');
          await audit?.recordAudit(ctx, { action: 'credential.create', resource: 'credential', id: name, after: created });
          return json(ctx, 201, created);
        }
        case 'admin.credentials.delete': {
          const name = ctx.params.name!;
          const deleted = await vault.delete(name);
          if (deleted === 'unknown') throw notFound(`No credential named ${name}.`, 'name');
          if (deleted === 'file') throw semanticError(`Credential ${name} is defined in the config file (credentials.${name}); remove it there.`, 'name');
          logger.info({ audit: 'credential.delete', requestId: ctx.id, credential: name }, 'credential deleted');
          await audit?.recordAudit(ctx, { action: 'credential.delete', resource: 'credential', id: name, before: deleted });
          return json(ctx, 200, { ...deleted, deleted: true });
        }
        case 'admin.credentials.test': {
          const name = ctx.params.name!;
          const held = vault.get(name);
          if (!held) throw notFound(`No credential named ${name}.`, 'name');
          ctx.secrets.push(...held.secrets);
          const result = await testConnection(held, providers, services.upstream, testTimeout);
          logger.info({ audit: 'credential.test', requestId: ctx.id, credential: name, provider: held.provider, ok: result.ok, status: result.status }, 'credential tested');
          return json(ctx, 200, { object: 'admin.credential.test', name, provider: held.provider, ...result });
        }
        default:
          throw notFound(`The credential operations do not serve ${ctx.method} ${ctx.path}.`);
      }
    };
  },
});
