/**
 * Secrets that were shipped in the repository's examples and docs (anyone who read them knows
 * them), and the shape of a placeholder. A gateway refuses to start with one of them as its
 * admin token or identity signing secret.
 */
export const SHIPPED_PLACEHOLDERS: readonly string[] = ['change-me-to-a-long-random-string', 'change-me-identity-signing-secret'];

const PLACEHOLDER_SHAPE = /(change|replace)[-_ .]?me|changeme|placeholder|your[-_ .]?(admin[-_ .]?)?(token|secret)|^(x+|secret|password|admin[-_]?token|token)$/i;

/** Whether `value` is a shipped placeholder or looks like one. */
export function isPlaceholderSecret(value: string): boolean {
  const v = value.trim();
  return SHIPPED_PLACEHOLDERS.some((p) => p.toLowerCase() === v.toLowerCase()) || PLACEHOLDER_SHAPE.test(v);
}

/** The shortest admin token accepted (32 characters: about 190 bits as base64, 128 as hex). */
export const MIN_ADMIN_TOKEN_LENGTH = 32;
