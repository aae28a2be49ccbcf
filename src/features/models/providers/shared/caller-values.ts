/**
 * Provider settings a caller may send (as x-gateway-<field> headers or routing-target fields)
 * that become part of an upstream URL: each is checked against a strict pattern before
 * anything is built or sent, so no value can change the host, port, user info, path or query
 * of an upstream request. Anything else is a 400 naming the parameter.
 */
export interface CallerValueRule {
  pattern: RegExp;
  /** What the value must be, for the error message. */
  what: string;
}

export const CALLER_VALUE_RULES: Record<string, CallerValueRule> = {
  azure_resource_name: {
    pattern: /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?$/,
    what: 'an Azure resource name (letters, digits and inner hyphens, at most 64 characters)',
  },
  azure_deployment_id: {
    pattern: /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,62}[A-Za-z0-9_])?$/,
    what: "an Azure deployment name (letters, digits, '.', '_' and '-', at most 64 characters)",
  },
  azure_api_version: {
    pattern: /^(?:\d{4}-\d{2}-\d{2}(?:-preview)?|v1|latest|preview)$/,
    what: 'an Azure OpenAI API version such as 2024-10-21 or 2025-01-01-preview',
  },
  aws_region: {
    pattern: /^[a-z]{2}(?:-[a-z]+){1,2}-\d{1,2}$/,
    what: 'an AWS region such as us-east-1',
  },
  vertex_project_id: {
    pattern: /^(?:[a-z0-9](?:[a-z0-9.-]{0,61}[a-z0-9])?:)?[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/,
    what: 'a Google Cloud project id (lower-case letters, digits and hyphens)',
  },
  vertex_region: {
    pattern: /^(?:global|[a-z]+(?:-[a-z]+\d{1,2})?)$/,
    what: 'a Google Cloud region such as us-central1, or global',
  },
};

/** Adds the rule of a setting a provider declares (its data file's options); a field keeps its first rule. */
export function addCallerValueRule(field: string, rule: CallerValueRule): void {
  CALLER_VALUE_RULES[field] ??= rule;
}

/** The header that carries a provider setting: x-gateway-<field with dashes>. */
export function settingHeader(field: string): string {
  return `x-gateway-${field.replace(/_/g, '-')}`;
}

/** Why a caller value is refused, or undefined when it passes (absent values pass). */
export function callerValueProblem(field: string, value: unknown): string | undefined {
  const rule = CALLER_VALUE_RULES[field];
  if (!rule || value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') return `must be a string: ${rule.what}`;
  return rule.pattern.test(value.trim()) ? undefined : `must be ${rule.what}`;
}

/**
 * Characters a header value may hold (what HTTP and undici accept): tab, visible ASCII, space
 * and obs-text. CR, LF, NUL and other control characters, and anything beyond Latin-1, are not.
 */
const HEADER_UNSAFE = /[^\t\x20-\x7e\x80-\xff]/;

export function headerSafe(value: string): boolean {
  return !HEADER_UNSAFE.test(value);
}
