import type { GatewayContext, JsonAnswer } from '../../../kernel/engine/context.js';
import type { GatewayServices } from '../../../kernel/engine/services.js';
import type { Migration } from '../../../kernel/store/sql-store.js';
import { getStore } from '../../../kernel/store/store-capability.js';
import { TARGET } from '../../models/model-request.js';
import type { ResolvedTarget } from '../../models/providers/provider.js';
import { PROVIDERS } from '../../models/providers/provider-registry.js';
import { costOf } from '../prices/cost.js';
import { NO_USAGE, usageClasses } from '../prices/usage-classes.js';
import type { ApplicableBudget, GatewayKey } from '../governance-types.js';
import type { MeterDeps } from './meter.js';

/** Batches run by a provider that were billed (one row each, so a batch is billed once across instances and retrievals). */
export const BILLED_BATCH_MIGRATIONS: Migration[] = [
  {
    id: 'billed-batches-001-create',
    statements: ['CREATE TABLE gateway_billed_batches (batch_id TEXT PRIMARY KEY, billed_at BIGINT NOT NULL)'],
  },
];

/** The largest output file read to bill a batch (bytes). */
const MAX_OUTPUT_BYTES = 512 * 1024 * 1024;

interface OutputLine {
  custom_id?: unknown;
  response?: { status_code?: unknown; body?: { model?: unknown; usage?: unknown } } | null;
}

/** A JSON answer's body: the object, or the upstream bytes passed through (parsed only when they say completed). */
function answerBody(response: JsonAnswer): unknown {
  if (response.body !== undefined || !response.raw || !response.raw.includes('"completed"')) return response.body;
  try {
    return JSON.parse(response.raw.toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Batches a provider runs (OpenAI's batch API and those shaped like it) billed per line when
 * they finish: the first `GET /v1/batches/{id}` made with a gateway key that answers
 * `status: completed` reads the batch's output file from the provider (with the same target and
 * key), prices each line's usage at the batch price, settles it on the key's budgets (a
 * settle per line, so the spend counts whatever the budget's state: the work is done) and
 * records one usage row per line (route `batch: <endpoint>`). Off the request path; billed
 * once per batch (gateway_billed_batches) across retrievals and instances.
 */
export class ProviderBatchBilling {
  constructor(
    private readonly services: GatewayServices,
    private readonly deps: MeterDeps,
  ) {}

  /** The metering observer's part: looks at each finished request. */
  observe(ctx: GatewayContext<any>, status: number): void {
    if (ctx.endpoint.operation !== 'batches.retrieve' || status !== 200) return;
    const response = ctx.response;
    if (response?.kind !== 'json') return;
    const batch = answerBody(response) as { id?: unknown; status?: unknown; output_file_id?: unknown; endpoint?: unknown } | undefined;
    if (batch?.status !== 'completed' || typeof batch.id !== 'string' || typeof batch.output_file_id !== 'string') return;
    const target = ctx.get(TARGET);
    const key = this.deps.inputs.keyOf(ctx);
    if (!target || !key) return;
    const billing = this.bill(ctx, key, batch.id, batch.output_file_id, typeof batch.endpoint === 'string' ? batch.endpoint : 'batch').catch((err: Error) =>
      this.deps.logger.warn({ batch: batch.id, err: err.message }, 'a provider batch could not be billed'),
    );
    this.deps.inFlight.add(billing);
    void billing.finally(() => this.deps.inFlight.delete(billing));
  }

  private async bill(ctx: GatewayContext<any>, key: GatewayKey, batchId: string, fileId: string, endpoint: string): Promise<void> {
    const target = ctx.get(TARGET)!;
    const store = getStore(this.services);
    const marker = `${target.provider}:${batchId}`;
    const first = await store.execute('INSERT INTO gateway_billed_batches (batch_id, billed_at) VALUES (?, ?) ON CONFLICT (batch_id) DO NOTHING', [marker, Date.now()]);
    if (!first) return;
    let text: string;
    try {
      text = await this.outputFile(target, fileId);
    } catch (err) {
      // Not billed: the next retrieval tries again.
      await store.execute('DELETE FROM gateway_billed_batches WHERE batch_id = ?', [marker]);
      throw err;
    }
    const { inputs, ledger } = this.deps;
    const budgets: readonly ApplicableBudget[] = inputs.budgetLedger ? await inputs.budgetsFor(ctx, key) : [];
    for (const raw of text.split('\n')) {
      if (!raw.trim()) continue;
      let line: OutputLine;
      try {
        line = JSON.parse(raw) as OutputLine;
      } catch {
        continue;
      }
      const body = line.response?.body;
      const model = typeof body?.model === 'string' ? body.model : null;
      const usage = body?.usage ? usageClasses(body.usage) : { ...NO_USAGE };
      const price = model ? inputs.priceOf(ctx, target.provider, model) : undefined;
      const micros = price ? (costOf(price, usage, { batch: true })?.micros ?? null) : null;
      const customId = typeof line.custom_id === 'string' ? line.custom_id : String(line.custom_id ?? '');
      const requestId = `${batchId}:${customId}`;
      if (budgets.length && inputs.budgetLedger) {
        const tokens = usage.input + usage.cacheRead + usage.cacheWrite + usage.output + usage.reasoning + usage.inputAudio + usage.outputAudio;
        // A settle without a reservation adds the spend (counted once per line id, should it be tried again).
        await inputs.budgetLedger.settle(budgets, { id: `batch:${requestId}`, micros: 0, tokens: 0 }, { micros: micros ?? 0, tokens });
      }
      if (micros)
        this.deps.spend.inc(
          [this.deps.teamLabel(key.team), model ? this.deps.modelLabel(target.provider, model) : 'other', this.deps.providerLabel(target.provider)],
          micros / 1e6,
        );
      ledger.record({
        requestId,
        at: Date.now(),
        keyId: key.id,
        user: key.user ?? null,
        team: key.team ?? null,
        organization: key.organization ?? null,
        customer: key.customer ?? null,
        route: `batch: ${endpoint}`,
        provider: target.provider,
        model,
        usage,
        costMicros: micros,
        priceSource: price?.source ?? null,
        status: typeof line.response?.status_code === 'number' ? line.response.status_code : 500,
        latencyMs: 0,
        estimated: false,
        unverified: false,
      });
    }
  }

  /** The output file's text, read from the provider as the batch's own request would reach it. */
  private async outputFile(target: ResolvedTarget, fileId: string): Promise<string> {
    const provider = this.services.require(PROVIDERS).get(target.provider);
    const adapter = provider?.operations['files.content'];
    if (!provider || !adapter) throw new Error(`${target.provider} serves no files.content`);
    const request = await adapter.request(
      {
        operation: 'files.content',
        body: undefined,
        stream: false,
        target,
        apiKey: target.apiKey,
        params: { file_id: fileId },
        query: new URLSearchParams(),
        hasQuery: false,
        headers: {},
        signal: AbortSignal.timeout(120_000),
      },
      provider,
    );
    const res = await this.services.upstream.send(request);
    if (res.statusCode !== 200) {
      await res.body.dump();
      throw new Error(`the output file ${fileId} answered ${res.statusCode}`);
    }
    const chunks: Buffer[] = [];
    let bytes = 0;
    for await (const chunk of res.body) {
      bytes += (chunk as Buffer).length;
      if (bytes > MAX_OUTPUT_BYTES) {
        res.body.destroy();
        throw new Error(`the output file ${fileId} is larger than ${MAX_OUTPUT_BYTES} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks).toString('utf8');
  }
}
