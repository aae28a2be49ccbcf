import type { GatewayContext } from '../../../kernel/engine/context.js';
import { defineService } from '../../../kernel/engine/services.js';

/**
 * Whether the request carries a gateway credential (a gateway token or config key, checked by
 * authenticate, which sets ctx.identity). Only such a request may use a key the gateway holds
 * (providers.<id>.apiKey, the keys and cloud secrets of configs.<name>).
 */
export function carriesGatewayCredential(ctx: GatewayContext): boolean {
  const identity = ctx.identity;
  return identity !== null && identity.kind !== 'anonymous';
}

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
}

export const HELD_CREDENTIALS = defineService<HeldCredentialSource>('held-credentials');
