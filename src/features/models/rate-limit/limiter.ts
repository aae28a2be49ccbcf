import { createHash } from 'node:crypto';
import type { GatewayContext } from '../../../kernel/engine/context.js';
import { defineSlot } from '../../../kernel/engine/slot.js';
import { PROVIDER_KEY } from '../model-request.js';
import type { RateLimitRule } from '../../../generated/gateway.js';
import { GatewayError } from '../../../contract/errors/gateway-error.js';
import { parseDuration } from '../../../kernel/config/defaults.js';
import type { Logger } from '../../../kernel/observability/logger.js';
import type { CounterSlot, RateCounter } from './counter.js';

interface CompiledRule {
  index: number;
  per: RateLimitRule['per'];
  limit: number;
  windowMs: number;
  tokens?: number;
  /** Whether the rule lists its routes (rules without cover the pipelines that count them by default). */
  listed: boolean;
  matches(ctx: GatewayContext): boolean;
}

/** The counter slots whose token budgets this request is charged to. */
export const TOKEN_SLOTS = defineSlot<CounterSlot[]>('rate-limit-token-slots', 'the rate-limit token budgets');

function routeMatcher(routes: string[] | undefined): (ctx: GatewayContext) => boolean {
  if (!routes?.length) return () => true;
  const tests = routes.map((r) => {
    const pattern = r.trim();
    if (pattern.endsWith('*')) {
      const prefix = pattern.slice(0, -1);
      return (paths: string[]) => paths.some((p) => p.startsWith(prefix));
    }
    return (paths: string[]) => paths.includes(pattern);
  });
  return (ctx) => {
    const paths = [ctx.endpoint.path, ctx.path];
    return tests.some((t) => t(paths));
  };
}

function hashSubject(value: string): string {
  return createHash('sha256').update(value).digest('base64url').slice(0, 22);
}

/** The provider keys a caller's own routing config carries (RoutingConfigs.callerKeys). */
export type CallerConfigKeys = (ctx: GatewayContext) => readonly string[] | undefined;

const NO_KEYS: readonly string[] = [];

/**
 * The provider keys a `per: key` rule counts for this request: every key the caller brings,
 * in whatever form, so that moving the key from x-gateway-api-key (or Authorization) into
 * x-gateway-config does not escape the limit. That is the request's own key, and each distinct
 * `api_key` of the caller's JSON routing config: a fallback, loadbalance or conditional config
 * may send any of them upstream, and counting only the first would let a config whose first
 * target is never tried (weight 0, a condition that never matches) spend another key freely.
 * The same key counts in the same counter whichever way it came. Keys the operator holds
 * (configs.<name>, credentials, providers.<id>.apiKey) are not the caller's and are not counted.
 */
function providerKeys(ctx: GatewayContext, configKeys: CallerConfigKeys | undefined): readonly string[] {
  const own = ctx.get(PROVIDER_KEY);
  const fromConfig = configKeys?.(ctx);
  if (!fromConfig?.length) return own ? [own] : NO_KEYS;
  return !own || fromConfig.includes(own) ? fromConfig : [own, ...fromConfig];
}

/** Whom a rule other than `per: key` counts for this request; undefined when the request has no such subject (not counted). */
function subjectOf(ctx: GatewayContext, per: Exclude<RateLimitRule['per'], 'key'>): string | undefined {
  switch (per) {
    case 'token':
      return ctx.identity ? `${ctx.identity.kind}:${ctx.identity.id}` : undefined;
    case 'user':
      return ctx.identity?.user ?? ctx.identity?.email ?? undefined;
    case 'team':
      return ctx.identity?.team ?? undefined;
    case 'ip':
      return ctx.req.socket?.remoteAddress ?? undefined;
  }
}

/**
 * Gateway rate limits: fixed windows aligned to the clock (a "1m" window runs from one whole
 * minute to the next), counted per provider key (hashed), gateway credential, user, team or
 * client address. Each request is counted in every rule that covers it; past a rule's
 * `limit` (or once its `tokens` budget is used up) the request is refused with 429 and
 * Retry-After until the window ends. X-RateLimit-Limit / -Remaining / -Reset (Unix seconds)
 * describe the tightest rule. When the counter store fails, requests pass (and it is logged).
 */
export class RateLimiter {
  private readonly rules: CompiledRule[];
  private lastWarning = 0;

  constructor(
    rules: RateLimitRule[],
    private readonly counter: RateCounter,
    private readonly logger: Logger,
    /** Told the scope (`per`) of each rule that refuses a request (the gateway_rate_limited_total counter). */
    private readonly onRefused?: (scope: string) => void,
  ) {
    this.rules = rules.map((rule, index) => ({
      index,
      per: rule.per,
      limit: rule.limit,
      windowMs: parseDuration(rule.window),
      tokens: rule.tokens,
      listed: Boolean(rule.routes?.length),
      matches: routeMatcher(rule.routes),
    }));
  }

  get hasTokenBudgets(): boolean {
    return this.rules.some((r) => r.tokens !== undefined);
  }

  /** Whether a rule counts provider keys (`per: key`). */
  get countsKeys(): boolean {
    return this.rules.some((r) => r.per === 'key');
  }

  /**
   * Counts this request; sets the X-RateLimit headers; throws 429 past a limit. Rules without
   * `routes` count it only when `defaultRules` (the provider pipelines). `configKeys`: the
   * provider keys of the caller's own routing config, which `per: key` rules count too.
   */
  async check(ctx: GatewayContext, defaultRules = true, configKeys?: CallerConfigKeys): Promise<void> {
    const now = Date.now();
    const counted: Array<{ rule: CompiledRule; slot: CounterSlot; resetAt: number }> = [];
    let keys: readonly string[] | undefined;
    for (const rule of this.rules) {
      if (!rule.listed && !defaultRules) continue;
      if (!rule.matches(ctx)) continue;
      if (rule.per === 'key') {
        keys ??= providerKeys(ctx, configKeys);
        for (const key of keys) counted.push(countIn(rule, key, now));
      } else {
        const subject = subjectOf(ctx, rule.per);
        if (subject) counted.push(countIn(rule, subject, now));
      }
    }
    if (!counted.length) return;
    let states;
    try {
      states = await this.counter.hit(counted.map((c) => c.slot));
    } catch (err) {
      this.warn(err);
      return;
    }
    let shown = -1;
    let shownRemaining = Infinity;
    let refused = -1;
    let tokenShown = -1;
    let tokenRemaining = Infinity;
    counted.forEach(({ rule }, i) => {
      const state = states[i]!;
      const remaining = rule.limit - state.requests;
      const overTokens = rule.tokens !== undefined && state.tokens >= rule.tokens;
      if ((remaining < 0 || overTokens) && (refused < 0 || counted[i]!.resetAt > counted[refused]!.resetAt)) refused = i;
      if (remaining < shownRemaining) {
        shown = i;
        shownRemaining = remaining;
      }
      if (rule.tokens !== undefined && rule.tokens - state.tokens < tokenRemaining) {
        tokenShown = i;
        tokenRemaining = rule.tokens - state.tokens;
      }
    });
    const pick = refused >= 0 ? refused : shown;
    const { rule, resetAt } = counted[pick]!;
    const headers = ctx.responseHeaders;
    headers['x-ratelimit-limit'] = String(rule.limit);
    headers['x-ratelimit-remaining'] = String(Math.max(0, rule.limit - states[pick]!.requests));
    headers['x-ratelimit-reset'] = String(Math.ceil(resetAt / 1000));
    if (tokenShown >= 0) {
      const t = counted[tokenShown]!.rule.tokens!;
      headers['x-ratelimit-limit-tokens'] = String(t);
      headers['x-ratelimit-remaining-tokens'] = String(Math.max(0, t - states[tokenShown]!.tokens));
    }
    if (refused >= 0) {
      const state = states[refused]!;
      const byTokens = rule.tokens !== undefined && state.tokens >= rule.tokens && state.requests <= rule.limit;
      const retryAfter = Math.max(1, Math.ceil((resetAt - Date.now()) / 1000));
      this.onRefused?.(rule.per);
      throw new GatewayError(
        'rate_limit_exceeded',
        `Rate limit exceeded: ${byTokens ? `${rule.tokens} tokens` : `${rule.limit} requests`} per ${windowText(rule.windowMs)} per ${rule.per}. Retry after ${retryAfter} s.`,
        { headers: { 'retry-after': String(retryAfter) }, retryAfter },
      );
    }
    const tokenSlots = counted.filter((c) => c.rule.tokens !== undefined).map((c) => c.slot);
    if (tokenSlots.length) ctx.set(TOKEN_SLOTS, tokenSlots);
  }

  /** Charges the tokens an answer used to the budgets this request was counted in. */
  async charge(slots: CounterSlot[], tokens: number): Promise<void> {
    try {
      await this.counter.addTokens(slots, tokens);
    } catch (err) {
      this.warn(err);
    }
  }

  private warn(err: unknown): void {
    const now = Date.now();
    if (now - this.lastWarning < 10_000) return;
    this.lastWarning = now;
    this.logger.warn({ err: (err as Error)?.message }, 'rate-limit counters unavailable; requests pass uncounted');
  }
}

/** The counter slot of `subject` in `rule`'s current window. */
function countIn(rule: CompiledRule, subject: string, now: number): { rule: CompiledRule; slot: CounterSlot; resetAt: number } {
  const window = Math.floor(now / rule.windowMs);
  const resetAt = (window + 1) * rule.windowMs;
  return { rule, resetAt, slot: { key: `${rule.index}:${rule.per}:${rule.windowMs}:${hashSubject(subject)}:${window}`, ttlMs: resetAt - now } };
}

function windowText(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  return `${ms / 1000}s`;
}
