import type { GatewayContext } from '../../../kernel/engine/context.js';
import { defineService } from '../../../kernel/engine/services.js';
import type { ResolvedTarget } from '../providers/provider.js';

export { carriesGatewayCredential } from '../model-request.js';

/** A provider credential the gateway holds (credentials.<name> or /v1/admin/credentials), as a target uses it. */
export interface HeldCredential {
  name: string;
  provider: string;
  apiKey?: string;
  /** The provider's settings (aws_*, azure_*, vertex_*). */
  options: Record<string, unknown>;
  /** Its secret values, for the redactor. */
  secrets: string[];
}

/** Where routing finds held credentials, and who may use them (the governance feature provides it). */
export interface HeldCredentialSource {
  get(name: string): HeldCredential | undefined;
  /** Whether this request's gateway key may use the credential (its `models` reach a catalogue model that uses it, or it may use every model). */
  mayUse(ctx: GatewayContext, name: string): boolean;
  /**
   * Whether this request's gateway key (and its team) could have `model` sent upstream with the
   * credential by asking the catalogue for a model it may use: a caller's own routing config
   * naming the credential gets no more than that (`undefined`: the request names no model).
   */
  mayUseForModel(ctx: GatewayContext, name: string, model: string | undefined): boolean;
  /**
   * Whether this request's gateway key (and its team) may have `model` sent upstream to
   * `provider` with a key the operator set outside the catalogue (a named config's key or cloud
   * secrets, providers.<id>.apiKey): a key limited to some models only a model its `models` name,
   * as `<model>` or `<provider>/<model>` (`undefined`: the request names none, which a limited
   * key may not).
   */
  mayUseOperatorKey(ctx: GatewayContext, provider: string, model: string | undefined): boolean;
}

export const HELD_CREDENTIALS = defineService<HeldCredentialSource>('held-credentials');

/** Targets whose key (or cloud secrets) the gateway holds, not the caller's own: those of one attempt, while it runs. */
const heldKeyTargets = new WeakSet<ResolvedTarget>();

/** Notes that `target` sends a key the gateway holds (a held credential, providers.<id>.apiKey, an operator config's key). */
export function markHeldKey(target: ResolvedTarget): void {
  heldKeyTargets.add(target);
}

/**
 * Whether the attempt's target sends a key the gateway holds: what the provider keeps for that
 * key (files, batches, fine-tuning jobs, responses) is shared by every tenant it serves, so the
 * gateway answers for each object's owner itself.
 */
export function usesHeldKey(target: ResolvedTarget | undefined): boolean {
  return target !== undefined && heldKeyTargets.has(target);
}
