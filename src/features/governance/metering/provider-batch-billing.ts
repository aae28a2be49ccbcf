import type { AnyRouteSpec } from '../../../contract/routes.js';
import type { GatewayContext, JsonAnswer } from '../../../kernel/engine/context.js';
import { defineService, type GatewayServices } from '../../../kernel/engine/services.js';
import type { Migration } from '../../../kernel/store/sql-store.js';
import { getStore } from '../../../kernel/store/store-capability.js';
import { TARGET, type ResolvedTarget, PROVIDERS, HELD_CREDENTIALS } from '../../models/index.js';
import { costOf } from '../prices/cost.js';
import { NO_USAGE, usageClasses } from '../prices/usage-classes.js';
import type { ApplicableBudget, GatewayKey } from '../governance-types.js';
import type { ModelPrice } from '../prices/cost.js';
import { isSecretField } from '../../../kernel/errors/redact.js';
import { SEALER } from '../../../kernel/store/sealer.js';
import type { MeterDeps } from './meter.js';

/** Batches run by a provider that were billed (one row each, so a batch is billed once across instances and retrievals). */
export const BILLED_BATCH_MIGRATIONS: Migration[] = [
  {
    id: 'billed-batches-001-create',
    statements: ['CREATE TABLE gateway_billed_batches (batch_id TEXT PRIMARY KEY, billed_at BIGINT NOT NULL)'],
  },
  {
    // Batches submitted with a gateway key on a key the gateway holds, watched until they finish
    // (never a key value: the target is kept without its key and secret settings).
    id: 'billed-batches-002-pending',
    statements: [
      `CREATE TABLE gateway_pending_batches (
        marker TEXT PRIMARY KEY,
        batch_id TEXT NOT NULL,
        endpoint TEXT NOT NULL,
        key_json TEXT NOT NULL,
        budgets_json TEXT NOT NULL,
        entry TEXT,
        target_json TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        next_check_at BIGINT NOT NULL
      )`,
      'CREATE INDEX gateway_pending_batches_due ON gateway_pending_batches (next_check_at)',
    ],
  },
  {
    // A batch submitted with the caller's own provider key: that key (and secret settings), sealed
    // under secrets.key, kept only until the batch is billed or given up (the row is then deleted).
    id: 'billed-batches-003-sealed-secrets',
    statements: ['ALTER TABLE gateway_pending_batches ADD COLUMN sealed_secrets TEXT'],
  },
];

/** How long a submitted batch is watched before it is given up (a provider's batches end within a day or so). */
const WATCH_FOR_MS = 7 * 86_400_000;
/** Batches looked at per poll. */
const POLL_BATCH = 20;
/** Statuses after which a batch changes no more (its output file holds what it did). */
const FINAL = new Set(['completed', 'failed', 'expired', 'cancelled']);

/** Who pays for a batch's lines and at what price. */
interface BillTo {
  target: ResolvedTarget;
  key: GatewayKey;
  budgets: () => Promise<readonly ApplicableBudget[]>;
  priceOf: (provider: string, model: string) => ModelPrice | undefined;
}

interface PendingRow {
  marker: string;
  batch_id: string;
  endpoint: string;
  key_json: string;
  budgets_json: string;
  entry: string | null;
  target_json: string;
  /** The caller's own key and secret settings, sealed (null: the key is one the gateway holds). */
  sealed_secrets: string | null;
  created_at: number | string;
  next_check_at: number | string;
}

/** The watcher and biller of provider-run batches (started with the gateway, stopped at shutdown). */
export const PROVIDER_BATCH_BILLING = defineService<ProviderBatchBilling>('provider-batch-billing');

/** The largest output file read to bill a batch (bytes). */
const MAX_OUTPUT_BYTES = 512 * 1024 * 1024;

interface OutputLine {
  custom_id?: unknown;
  response?: { status_code?: unknown; body?: { model?: unknown; usage?: unknown } } | null;
}

/** A JSON answer's body: the object, or the upstream bytes passed through (parsed when `always`, else only when they may say a final status). */
function answerBody(response: JsonAnswer, always = false): unknown {
  if (response.body !== undefined || !response.raw) return response.body;
  if (!always && !/"(completed|failed|expired|cancelled)"/.test(response.raw.toString('latin1'))) return undefined;
  try {
    return JSON.parse(response.raw.toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Batches run by a provider (OpenAI's batch API and those shaped like it) billed per line when
 * they finish: their output file is read from the provider, each line's usage priced at the
 * batch price, settled on the key's budgets (a settle per line, so the spend counts whatever the
 * budget's state: the work is done) and recorded as one usage row per line (route
 * `batch: <endpoint>`). Billed once per batch (gateway_billed_batches) across instances, by
 * whichever comes first: a `GET /v1/batches/{id}` made with a gateway key that answers a final
 * status, or the watcher. A batch submitted with a gateway key is watched (gateway_pending_batches,
 * polled every `pollMs` by one instance at a time) until it finishes, so a batch nobody asks about
 * again is billed too: on a key the gateway holds (a held credential or providers.<id>.apiKey),
 * or on the caller's own provider key when secrets.key is set (the key sealed in the row until
 * the batch is billed; without secrets.key such a batch is billed when it is retrieved). Off the
 * request path.
 */
export class ProviderBatchBilling {
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;

  constructor(
    private readonly services: GatewayServices,
    private readonly deps: MeterDeps,
    private readonly pollMs = 60_000,
  ) {}

  /** The metering observer's part: looks at each finished request. */
  observe(ctx: GatewayContext<AnyRouteSpec>, status: number): void {
    const operation = ctx.endpoint.operation;
    if ((operation !== 'batches.retrieve' && operation !== 'batches.create') || status !== 200) return;
    const response = ctx.response;
    if (response?.kind !== 'json') return;
    const batch = answerBody(response, operation === 'batches.create') as { id?: unknown; status?: unknown; output_file_id?: unknown; endpoint?: unknown } | undefined;
    const target = ctx.get(TARGET);
    const key = this.deps.inputs.keyOf(ctx);
    if (!target || !key || typeof batch?.id !== 'string') return;
    const batchId = batch.id;
    const endpoint = typeof batch.endpoint === 'string' ? batch.endpoint : 'batch';
    let work: Promise<void>;
    if (operation === 'batches.create') {
      work = this.watch(ctx, target, key, batchId, endpoint);
    } else {
      if (!FINAL.has(String(batch.status)) || typeof batch.output_file_id !== 'string') return;
      const { inputs } = this.deps;
      const billTo: BillTo = {
        target,
        key,
        budgets: async () => (inputs.budgetLedger ? inputs.budgetsFor(ctx, key) : []),
        priceOf: (provider, model) => inputs.priceOf(ctx, provider, model),
      };
      work = this.bill(billTo, batchId, batch.output_file_id, endpoint);
    }
    this.track(work.catch((err: Error) => this.deps.logger.warn({ batch: batchId, err: err.message }, 'a provider batch could not be billed')));
  }

  private track(work: Promise<void>): void {
    this.deps.ledger.track(work);
  }

  /**
   * Records a submitted batch to watch. The key it ran with is never stored as it is: a held key
   * is found again by its name (or providers.<id>.apiKey); the caller's own key and secret
   * settings are sealed under secrets.key (without secrets.key the caller's key is not kept, and
   * such a batch is billed when it is retrieved).
   */
  private async watch(ctx: GatewayContext, target: ResolvedTarget, key: GatewayKey, batchId: string, endpoint: string): Promise<void> {
    const configured = this.services.config.providers?.[target.provider]?.apiKey;
    const held = target.credential !== undefined;
    const own = !held && (typeof configured !== 'string' || target.apiKey !== configured);
    const sealer = own ? this.services.get(SEALER) : undefined;
    if (own && (!sealer || !target.apiKey)) return;
    const options: Record<string, unknown> = {};
    const secretOptions: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(target.options ?? {})) {
      if (!isSecretField(name)) options[name] = value;
      else if (own) secretOptions[name] = value;
      // A secret setting that is not the held credential's own could not be restored later.
      else if (!held) return;
    }
    const sealed = sealer ? sealer.seal(JSON.stringify({ apiKey: target.apiKey, options: secretOptions })) : null;
    const stored: ResolvedTarget = { ...target, options };
    delete stored.apiKey;
    const { inputs } = this.deps;
    const budgets = inputs.budgetLedger ? await inputs.budgetsFor(ctx, key) : [];
    const now = Date.now();
    await getStore(this.services).execute(
      `INSERT INTO gateway_pending_batches (marker, batch_id, endpoint, key_json, budgets_json, entry, target_json, sealed_secrets, created_at, next_check_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (marker) DO NOTHING`,
      [
        `${target.provider}:${batchId}`,
        batchId,
        endpoint,
        JSON.stringify(key),
        JSON.stringify(budgets),
        inputs.catalogueEntryOf?.(ctx) ?? null,
        JSON.stringify(stored),
        sealed,
        now,
        now + this.pollMs,
      ],
    );
  }

  /** Starts the watcher (a poll every pollMs, unref'd); `stop` ends it and waits for a poll in progress. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.polling) return;
      this.polling = this.poll()
        .catch((err: Error) => this.deps.logger.warn({ err: err.message }, 'watching provider batches failed'))
        .finally(() => (this.polling = undefined));
    }, this.pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.polling;
  }

  /** One look at the batches due: each claimed by one instance, retrieved, and billed once final. */
  async poll(now = Date.now()): Promise<void> {
    const store = getStore(this.services);
    const due = await store.query<PendingRow>(`SELECT * FROM gateway_pending_batches WHERE next_check_at <= ? ORDER BY next_check_at LIMIT ${POLL_BATCH}`, [now]);
    for (const row of due) {
      const claimed = await store.execute('UPDATE gateway_pending_batches SET next_check_at = ? WHERE marker = ? AND next_check_at = ?', [
        now + this.pollMs,
        row.marker,
        Number(row.next_check_at),
      ]);
      if (!claimed) continue;
      try {
        await this.check(row, now);
      } catch (err) {
        this.deps.logger.warn({ batch: row.batch_id, err: (err as Error).message }, 'a provider batch could not be checked; it is tried again');
      }
    }
  }

  private async check(row: PendingRow, now: number): Promise<void> {
    const store = getStore(this.services);
    const forget = () => store.execute('DELETE FROM gateway_pending_batches WHERE marker = ?', [row.marker]);
    if (now - Number(row.created_at) > WATCH_FOR_MS) {
      this.deps.logger.warn({ batch: row.batch_id }, 'a provider batch did not finish within 7 days: no longer watched');
      await forget();
      return;
    }
    const target = this.restore(JSON.parse(row.target_json) as ResolvedTarget, row.sealed_secrets);
    if (!target) {
      this.deps.logger.warn({ batch: row.batch_id }, 'the key a provider batch ran with is gone: it is billed when retrieved');
      await forget();
      return;
    }
    const batch = (await this.fetchJson(target, row.batch_id)) as { status?: unknown; output_file_id?: unknown } | undefined;
    if (!batch || !FINAL.has(String(batch.status))) return;
    if (typeof batch.output_file_id === 'string') {
      const entry = row.entry ?? undefined;
      const budgets = JSON.parse(row.budgets_json) as ApplicableBudget[];
      const billTo: BillTo = {
        target,
        key: JSON.parse(row.key_json) as GatewayKey,
        budgets: async () => budgets,
        priceOf: (provider, model) => this.deps.inputs.priceUnder(entry, provider, model),
      };
      await this.bill(billTo, row.batch_id, batch.output_file_id, row.endpoint);
    }
    await forget();
  }

  /**
   * The stored target with the key it ran with: the caller's own (unsealed), the held
   * credential's (as it is now), or the provider's configured one; undefined when it is gone
   * (secrets.key changed without the old one kept in previousKeys, the credential deleted).
   */
  private restore(stored: ResolvedTarget, sealed: string | null): ResolvedTarget | undefined {
    if (sealed) {
      const opened = this.services.get(SEALER)?.open(sealed);
      if (opened === undefined) return undefined;
      const own = JSON.parse(opened) as { apiKey: string; options: Record<string, unknown> };
      return { ...stored, apiKey: own.apiKey, options: { ...stored.options, ...own.options } };
    }
    if (stored.credential !== undefined) {
      const held = this.services.get(HELD_CREDENTIALS)?.get(stored.credential);
      if (!held || held.provider !== stored.provider) return undefined;
      return { ...stored, apiKey: held.apiKey, options: { ...held.options, ...stored.options } };
    }
    const configured = this.services.config.providers?.[stored.provider]?.apiKey;
    return typeof configured === 'string' && configured ? { ...stored, apiKey: configured } : undefined;
  }

  private async bill(to: BillTo, batchId: string, fileId: string, endpoint: string): Promise<void> {
    const { target, key } = to;
    const store = getStore(this.services);
    const marker = `${target.provider}:${batchId}`;
    const first = await store.execute('INSERT INTO gateway_billed_batches (batch_id, billed_at) VALUES (?, ?) ON CONFLICT (batch_id) DO NOTHING', [marker, Date.now()]);
    if (!first) return;
    let text: string;
    try {
      text = await this.outputFile(target, fileId);
    } catch (err) {
      // Not billed: the next retrieval (or the watcher) tries again.
      await store.execute('DELETE FROM gateway_billed_batches WHERE batch_id = ?', [marker]);
      throw err;
    }
    await store.execute('DELETE FROM gateway_pending_batches WHERE marker = ?', [marker]);
    const { inputs, ledger } = this.deps;
    const budgets = await to.budgets();
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
      const price = model ? to.priceOf(target.provider, model) : undefined;
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

  /** The batch as the provider answers `batches.retrieve` now (undefined: not answered with 200). */
  private async fetchJson(target: ResolvedTarget, batchId: string): Promise<unknown> {
    const res = await this.call(target, 'batches.retrieve', { batch_id: batchId }, 30_000);
    if (res.statusCode !== 200) {
      await res.body.dump();
      throw new Error(`retrieving the batch answered ${res.statusCode}`);
    }
    return res.body.json();
  }

  /** One call of the provider's adapter for `operation`, sent as the batch's own requests were. */
  private async call(target: ResolvedTarget, operation: 'batches.retrieve' | 'files.content', params: Record<string, string>, timeoutMs: number) {
    const provider = this.services.require(PROVIDERS).get(target.provider);
    const adapter = provider?.operations[operation];
    if (!provider || !adapter) throw new Error(`${target.provider} serves no ${operation}`);
    const request = await adapter.request(
      {
        operation,
        body: undefined,
        stream: false,
        target,
        apiKey: target.apiKey,
        params,
        query: new URLSearchParams(),
        hasQuery: false,
        headers: {},
        signal: AbortSignal.timeout(timeoutMs),
      },
      provider,
    );
    return this.services.upstream.send(request);
  }

  /** The output file's text, read from the provider as the batch's own request would reach it. */
  private async outputFile(target: ResolvedTarget, fileId: string): Promise<string> {
    const res = await this.call(target, 'files.content', { file_id: fileId }, 120_000);
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
