/**
 * The settings providers declare (ProviderDefinition.fields): each one's name (the routing-target
 * field and `providers.<id>.<name>`, sent as `x-gateway-<name with dashes>`), whether it is a
 * secret, whether it ends up in an upstream header, the pattern a value that becomes part of an
 * address must match, and whether the provider's host is built from it. Generic code (the
 * credential headers, inheritance, config checks, the caller-value check, the upstream guard)
 * reads this registry instead of naming fields; a provider (built-in, data file or plugin)
 * adds a setting by declaring it.
 */
export interface ProviderField {
  name: string;
  /** A credential: remembered for the redactor, never logged. */
  secret?: boolean;
  /** Its value may be JSON holding a `private_key` (a service account key): that is a secret too. */
  json?: boolean;
  /** It becomes an upstream header value (checked free of CR, LF, NUL). */
  header?: boolean;
  /** It becomes part of an upstream address: a value must match (checked before anything is built). */
  pattern?: RegExp;
  /** What a value must be, for the error message (with `pattern`). */
  what?: string;
  /** The provider's host is built from it: named when the host check fails. */
  host?: boolean;
}

/** A declared field, and the providers that declared it. */
interface Declared extends ProviderField {
  providers: string[];
}

const FIELDS = new Map<string, Declared>();

/** Lists read on every request, made again only when a provider declares something. */
let lists: { all: Declared[]; address: string[]; header: string[]; secret: string[]; byHeader: Map<string, Declared> } | undefined;

function cached() {
  if (lists) return lists;
  const all = [...FIELDS.values()];
  lists = {
    all,
    address: all.filter((f) => f.pattern).map((f) => f.name),
    header: all.filter((f) => f.header).map((f) => f.name),
    secret: all.filter((f) => f.secret).map((f) => f.name),
    byHeader: new Map(all.map((f) => [settingHeader(f.name), f])),
  };
  return lists;
}

/** The name a field travels under as a request header. */
export function settingHeader(field: string): string {
  return `x-gateway-${field.replace(/_/g, '-')}`;
}

/**
 * Declares the fields of one provider. A field two providers declare keeps its first rules
 * (the same name means the same setting); the later provider is added to its users.
 */
export function declareProviderFields(provider: string, fields: readonly ProviderField[] | undefined): void {
  for (const field of fields ?? []) {
    const known = FIELDS.get(field.name);
    if (known) {
      if (!known.providers.includes(provider)) known.providers.push(provider);
      continue;
    }
    FIELDS.set(field.name, { ...field, providers: [provider] });
  }
  lists = undefined;
}

/** Every declared field. */
export function providerFields(): readonly Declared[] {
  return cached().all;
}

/**
 * The declared field a request header carries (`x-gateway-<name with dashes>`): a request's
 * settings are found by walking its few headers, not by probing every declared field's header.
 */
export function providerFieldOfHeader(header: string): Declared | undefined {
  return cached().byHeader.get(header);
}

/** The fields whose values become part of an upstream address (each has a pattern). */
export function addressFieldNames(): readonly string[] {
  return cached().address;
}

/** The fields whose values become upstream header values. */
export function headerFieldNames(): readonly string[] {
  return cached().header;
}

/** The fields that hold credentials. */
export function secretFieldNames(): readonly string[] {
  return cached().secret;
}

export function providerField(name: string): Declared | undefined {
  return FIELDS.get(name);
}

/** The field a provider's host is built from, if it declared one. */
export function hostFieldOf(provider: string): string | undefined {
  for (const field of FIELDS.values()) if (field.host && field.providers.includes(provider)) return field.name;
  return undefined;
}
