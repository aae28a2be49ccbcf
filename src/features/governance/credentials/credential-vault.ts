import type { GatewayContext } from '../../../kernel/engine/context.js';
import { registerSecrets } from '../../../kernel/errors/redact.js';
import type { Logger } from '../../../kernel/observability/logger.js';
import type { HeldCredential, HeldCredentialSource } from '../../models/index.js';
import { GATEWAY_KEY } from '../governance-slots.js';
import { keyMayUseModel, keyReachesEntry } from '../model-access.js';
import type { GatewayKey } from '../governance-types.js';
import { fieldSecrets, lastFour } from './credential-fields.js';
import type { CredentialStore } from './credential-store.js';
import type { SecretBox } from './secret-box.js';

/** What decides which models a key may have sent with a credential: the catalogue, and the models of the key's team. */
export interface CredentialAccess {
  reachesWithCredential(credential: string, model: string, key: GatewayKey | undefined, teamModels?: readonly string[]): boolean;
  teamModels(key: GatewayKey): readonly string[] | undefined;
}

/** A held credential as the gateway keeps it in memory (its fields in the clear, never shown). */
interface Entry {
  name: string;
  provider: string;
  fields: Record<string, unknown>;
  description?: string;
  source: 'file' | 'api';
  last4: string;
  createdAt?: number;
  held: HeldCredential;
}

/** How /v1/admin/credentials shows a credential: never a value, only the names of its fields and the last 4 characters of its key. */
export interface CredentialResource {
  object: 'credential';
  name: string;
  provider: string;
  description?: string;
  fields: string[];
  last4: string;
  source: 'file' | 'api';
  created_at?: number;
}

/** Why a credential could not be read: no key opens it (secrets.key and previousKeys do not match what sealed it). */
export class VaultError extends Error {}

/** How often other instances' writes are picked up (ms). */
const REFRESH_MS = 30_000;

function entryOf(name: string, provider: string, fields: Record<string, unknown>, source: Entry['source'], description?: string, createdAt?: number): Entry {
  const options: Record<string, unknown> = { ...fields };
  delete options.api_key;
  const held: HeldCredential = { name, provider, options, secrets: fieldSecrets(fields) };
  if (typeof fields.api_key === 'string') held.apiKey = fields.api_key;
  registerSecrets(held.secrets);
  return { name, provider, fields, description, source, last4: lastFour(fields), createdAt, held };
}

/**
 * The credentials the gateway holds: those of the config file (`credentials.<name>`, read-only
 * through the API) and those created through /v1/admin/credentials, kept in the store sealed
 * with AES-256-GCM (secrets.key). At start-up every stored value is read; one sealed under a
 * previous key is sealed again under the current one (key rotation). Every value is registered
 * with the redactor. Other instances' writes are read again every 30 s.
 */
export class CredentialVault implements HeldCredentialSource {
  private readonly entries = new Map<string, Entry>();
  /** Credential name -> the catalogue entries whose targets name it (set by the catalogue). */
  private usage = new Map<string, string[]>();
  /** Set with the catalogue: without it, only keys that may use every model use a credential for a model of their choosing. */
  private access: CredentialAccess | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: CredentialStore,
    private readonly box: SecretBox | undefined,
    private readonly logger: Logger,
  ) {}

  /** Adds the config file's credentials (already checked). */
  addFromConfig(name: string, provider: string, fields: Record<string, unknown>, description?: string): void {
    this.entries.set(name, entryOf(name, provider, fields, 'file', description));
  }

  /** Reads the stored credentials; re-seals under the current key those a previous key opened. Throws VaultError when one cannot be read. */
  async load(): Promise<{ resealed: number }> {
    const rows = await this.store.list();
    if (rows.length && !this.box) {
      throw new VaultError(`secrets.key: the store holds ${rows.length} credential(s) sealed with a key: set secrets.key (or GATEWAY_SECRET_KEY) to read them`);
    }
    let resealed = 0;
    const seen = new Set<string>();
    for (const row of rows) {
      seen.add(row.name);
      if (this.entries.get(row.name)?.source === 'file') continue;
      const opened = this.box!.decrypt(row.sealed);
      if (!opened) throw new VaultError(`secrets.key: stored credential "${row.name}" cannot be read with secrets.key or secrets.previousKeys`);
      if (opened.keyIndex > 0) {
        await this.store.reseal(row.name, this.box!.encrypt(opened.plain));
        resealed++;
      }
      const fields = JSON.parse(opened.plain) as Record<string, unknown>;
      this.entries.set(row.name, entryOf(row.name, row.provider, fields, 'api', row.description ?? undefined, row.createdAt));
    }
    for (const [name, entry] of this.entries) if (entry.source === 'api' && !seen.has(name)) this.entries.delete(name);
    return { resealed };
  }

  /** Reads the store again every 30 s (writes of other instances); stopped by close(). */
  watch(): void {
    this.timer ??= setInterval(() => {
      this.load().catch((err) => this.logger.warn({ err: (err as Error).message }, 'held credentials could not be read again'));
    }, REFRESH_MS);
    this.timer.unref();
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Which catalogue entries use which credential (for mayUse). */
  setUsage(usage: Map<string, string[]>, access?: CredentialAccess): void {
    this.usage = usage;
    this.access = access;
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  get(name: string): HeldCredential | undefined {
    return this.entries.get(name)?.held;
  }

  providerOf(name: string): string | undefined {
    return this.entries.get(name)?.provider;
  }

  mayUse(ctx: GatewayContext, name: string): boolean {
    const key = ctx.get(GATEWAY_KEY);
    if (!key) return false;
    const team = this.access?.teamModels(key);
    if (key.models === undefined && team === undefined) return true;
    // The key's own models and its team's both limit it.
    return (this.usage.get(name) ?? []).some((entry) => keyReachesEntry(key.models, entry) && keyReachesEntry(team, entry));
  }

  /**
   * A key that may use every model (nor is its team limited) may send any model with a
   * credential it may use; a limited one only a model that a catalogue model it may use sends
   * with that credential (`undefined`: the request names none, which a limited key may not).
   */
  mayUseForModel(ctx: GatewayContext, name: string, model: string | undefined): boolean {
    const key = ctx.get(GATEWAY_KEY);
    if (!key || !this.mayUse(ctx, name)) return false;
    const team = this.access?.teamModels(key);
    if (key.models === undefined && team === undefined) return true;
    if (model === undefined || !this.access) return false;
    return this.access.reachesWithCredential(name, model, key, team);
  }

  mayUseOperatorKey(ctx: GatewayContext, provider: string, model: string | undefined): boolean {
    const key = ctx.get(GATEWAY_KEY);
    // A config-file key (auth.apiKeys) has no model list.
    if (!key) return true;
    const team = this.access?.teamModels(key);
    if (key.models === undefined && team === undefined) return true;
    if (model === undefined) return false;
    const qualified = `${provider}/${model}`;
    const names = (models: readonly string[] | undefined): boolean => keyMayUseModel(models, model) || keyMayUseModel(models, qualified);
    return names(key.models) && names(team);
  }

  list(): CredentialResource[] {
    return [...this.entries.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map(resourceOf);
  }

  /** Seals and stores a new credential; 'exists' when the name is taken (in the file or the store), 'no-key' without secrets.key. */
  async create(name: string, provider: string, fields: Record<string, unknown>, description?: string): Promise<CredentialResource | 'exists' | 'no-key'> {
    if (!this.box) return 'no-key';
    if (this.entries.has(name)) return 'exists';
    const createdAt = Math.floor(Date.now() / 1000);
    const entry = entryOf(name, provider, fields, 'api', description, createdAt);
    const stored = await this.store.insert({ name, provider, sealed: this.box.encrypt(JSON.stringify(fields)), last4: entry.last4, description: description ?? null, createdAt });
    if (!stored) return 'exists';
    this.entries.set(name, entry);
    return resourceOf(entry);
  }

  /** Deletes a credential created through the API; 'file' for one of the config file, 'unknown' for none. */
  async delete(name: string): Promise<CredentialResource | 'file' | 'unknown'> {
    const entry = this.entries.get(name);
    if (entry?.source === 'file') return 'file';
    const deleted = await this.store.delete(name);
    if (!entry && !deleted) return 'unknown';
    this.entries.delete(name);
    return entry ? resourceOf(entry) : { object: 'credential', name, provider: '', fields: [], last4: '', source: 'api' };
  }
}

function resourceOf(e: Entry): CredentialResource {
  const out: CredentialResource = { object: 'credential', name: e.name, provider: e.provider, fields: Object.keys(e.fields), last4: e.last4, source: e.source };
  if (e.description !== undefined) out.description = e.description;
  if (e.createdAt !== undefined) out.created_at = e.createdAt;
  return out;
}
