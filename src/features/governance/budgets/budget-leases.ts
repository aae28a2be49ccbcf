import { randomBytes } from 'node:crypto';
import type { ApplicableBudget, BudgetLedger, Reservation, ReserveResult } from '../governance-types.js';
import { uniqueBudgets } from './budget-ledger.js';
import { planOf, windowOfBudget } from './budget-plan.js';

/** The store-backed ledger a lease is taken from and returned to (LedgerOverBackend). */
export interface LeaseSource extends BudgetLedger {
  close(): Promise<void>;
  stopHeartbeat(): void;
}

export interface LeaseOptions {
  /** How many of the asking request's worst-case cost one lease holds. */
  requests: number;
  /** The most of what was left of a budget (at the last lease) that one lease takes. */
  share: number;
  /** How long a lease takes new requests before it is returned (ms). */
  intervalMs: number;
  /** The wall clock (tests inject one). */
  clock?: () => number;
}

interface Amount {
  micros: number;
  tokens: number;
}

/** One slice of one budget, held in the store as a reservation of this instance. */
interface Lease {
  /** The store reservation's id. */
  id: string;
  budget: ApplicableBudget;
  /** When it was taken: its window, and when it stops taking requests. */
  takenAt: number;
  size: Amount;
  /** Live requests' reservations on it. */
  held: Amount;
  /** Settled requests' real cost on it. */
  spent: Amount;
  live: number;
  /** Still takes new requests. */
  open: boolean;
  /** The slot (budget and window) it was taken for. */
  slot: Slot;
  /** Settled requests waiting for their spend to reach the store. */
  waiters: SettleWait[];
  /** Being moved to a new reservation (see carry). */
  carrying?: boolean;
}

/** The leases of one budget in one window. */
interface Slot {
  open?: Lease;
  spare?: Lease;
  taking?: Promise<TakeResult>;
  /** What was left of the budget's money after the last lease was taken (the next lease's size is a share of it). */
  lastLeft?: number;
  /** This instance's leases of the slot reserved in the store: their room not yet held or spent is what this instance may still spend of them. */
  leases: Set<Lease>;
  /**
   * What this instance's store operations on the budget changed of its money left, summed as
   * each is sent (a lease taken: minus its size; one settled: plus the room it gives back).
   */
  change: number;
  /**
   * What the store had left before any of those operations (money budgets), from the last
   * answer to an operation that was alone under way from when it was sent until it was
   * answered: that answer is what the store had left after exactly the operations before it
   * and itself (one sent beside others may have been taken before or after them: a pool of
   * connections, PostgreSQL's, lets a later one overtake an earlier one). What is left now is
   * base + change.
   */
  base?: number;
  /** The room of reservations sent and not yet answered (this instance's once taken). */
  inFlight: number;
  /** Store operations sent so far, and those not yet answered. */
  sends: number;
  underWay: number;
  /** Leases are `requests` × this requests long: doubled while leases fill faster than a quarter interval, halved while they expire mostly unused. */
  scale: number;
}

const MAX_SCALE = 64;

/** A lease's spend on its way to the store. */
interface Landing {
  budget: ApplicableBudget;
  takenAt: number;
  spent: Amount;
}

/** What a lease's settle in the store carries: its reservation, size, spend and the settles waiting for it. */
type LeasePart = Pick<Lease, 'id' | 'size' | 'spent' | 'waiters'>;

type TakeResult = { ok: true; lease: Lease } | Exclude<ReserveResult, { ok: true }>;

const add = (a: Amount, b: Amount): void => {
  a.micros += b.micros;
  a.tokens += b.tokens;
};
const sub = (a: Amount, b: Amount): void => {
  a.micros -= b.micros;
  a.tokens -= b.tokens;
};

function hold(lease: Lease, want: Amount): void {
  add(lease.held, want);
  lease.live++;
}

/** What a reservation holds on a lease (never less than nothing). */
function wanted(amount: Reservation): Amount {
  return { micros: Math.max(0, amount.micros), tokens: Math.max(0, amount.tokens) };
}

/** A lease has room for `amount` when what it holds plus what it spent plus `amount` fits its size. */
function fits(lease: Lease, amount: Amount): boolean {
  return lease.held.micros + lease.spent.micros + amount.micros <= lease.size.micros && lease.held.tokens + lease.spent.tokens + amount.tokens <= lease.size.tokens;
}

/**
 * Budget leases (`budgets.leases`): the contract's reserve → settle, with the store's atomic
 * step taken once per slice of a budget instead of once per request. An instance reserves a
 * lease (say 64 worst-case requests, never more than a quarter of what was left) on the store
 * like any reservation: atomic across instances, kept alive by the heartbeat, expired if the
 * instance dies. Requests then reserve and settle on the lease in memory. A lease stops taking
 * requests after `interval` (or when full) and is settled in the store for its real spend once
 * its last request settles, so spend reaches the shared counters at most `interval` plus the
 * longest request late, and a budget's use in the store (settled + reserved) always covers it.
 * The next lease is taken in the background when one is half used. Near the limit a lease that
 * does not fit shrinks to the asking request alone, which is the per-request reservation; a
 * request that does not fit even so is refused by the store as before.
 */
export class LeasedLedger implements BudgetLedger {
  private readonly slots = new Map<string, Slot>();
  /** Each budget's slot key for the window it was last asked in (made once per window, not per request). */
  private readonly slotKeys = new Map<string, { series: string; to: number; key: string }>();
  /** Leases not yet settled in the store (open, spare, draining or being returned). */
  private readonly unreturned = new Set<Lease>();
  /** The leases each live request holds. */
  private readonly holds = new Map<string, Lease[]>();
  /** Spend on its way to the store (counted by spent() meanwhile), and the work taking it there (close waits for it). */
  private readonly landing = new Map<Landing, Promise<void> | undefined>();
  private readonly clock: () => number;
  private readonly prefix = `lease:${randomBytes(6).toString('hex')}:`;
  private seq = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly source: LeaseSource,
    private readonly options: LeaseOptions,
  ) {
    this.clock = options.clock ?? Date.now;
  }

  reserve(budgets: readonly ApplicableBudget[], amount: Reservation, now?: number): Promise<ReserveResult> {
    if (!budgets.length) return Promise.resolve({ ok: true, reservation: amount });
    const at = now ?? this.clock();
    const want = wanted(amount);
    const unique = uniqueBudgets(budgets);
    const taken: Lease[] = [];
    try {
      // Most requests find room on each budget's open lease: held there in this turn, with no await.
      const held = this.holdOnOpenLeases(unique, want, at, taken);
      if (held < unique.length) return this.reserveTaking(unique, held, taken, want, amount, at);
      return Promise.resolve(this.reserved(amount, taken));
    } catch (err) {
      this.release(taken, want);
      return Promise.reject(err as Error);
    }
  }

  /** The reservation in this turn when every budget's open lease has room; else undefined, with nothing held. */
  reserveNow(budgets: readonly ApplicableBudget[], amount: Reservation): ReserveResult | undefined {
    if (!budgets.length) return { ok: true, reservation: amount };
    const at = this.clock();
    const want = wanted(amount);
    const unique = uniqueBudgets(budgets);
    const taken: Lease[] = [];
    try {
      if (this.holdOnOpenLeases(unique, want, at, taken) === unique.length) return this.reserved(amount, taken);
    } catch {
      // what reserve would reject with: it is asked next, from the start
    }
    this.release(taken, want);
    return undefined;
  }

  /** Holds `want` on the open lease of each budget in turn until one has none with room: how many were held (pushed to `taken`). */
  private holdOnOpenLeases(budgets: readonly ApplicableBudget[], want: Amount, at: number, taken: Lease[]): number {
    for (let i = 0; i < budgets.length; i++) {
      const lease = this.holdOnOpenLease(budgets[i]!, want, at);
      if (!lease) return i;
      taken.push(lease);
    }
    return budgets.length;
  }

  /** The rest of a reservation from budget `from` on, taking leases where the open one has no room. */
  private async reserveTaking(budgets: readonly ApplicableBudget[], from: number, taken: Lease[], want: Amount, amount: Reservation, at: number): Promise<ReserveResult> {
    for (let i = from; i < budgets.length; i++) {
      const got = await this.leaseFor(budgets[i]!, want, at);
      if (!got.ok) {
        this.release(taken, want);
        return got;
      }
      taken.push(got.lease);
    }
    return this.reserved(amount, taken);
  }

  private reserved(amount: Reservation, taken: Lease[]): ReserveResult {
    this.holds.set(amount.id, taken);
    this.startTimer();
    const remaining = remainingOf(taken);
    return remaining === undefined ? { ok: true, reservation: amount } : { ok: true, reservation: amount, remainingMicros: remaining };
  }

  /**
   * Settles on the request's leases in memory. The answer comes once the spend has reached the
   * store (the lease returned, or carried: see `carry`), so what a caller records after it is
   * never ahead of the store's counters.
   */
  settle(budgets: readonly ApplicableBudget[], reservation: Reservation, actual: { micros: number; tokens: number }, now?: number): Promise<{ remainingMicros?: number }> {
    return new Promise((resolve, reject) =>
      this.settleThen(budgets, reservation, actual, (err, remaining) => (err ? reject(err) : resolve(remaining === undefined ? {} : { remainingMicros: remaining })), now),
    );
  }

  /**
   * settle, answered through `done` (the request's one callback waits on its leases: no promise
   * per request). `done` is called once: with the tightest money budget's remaining
   * microdollars when the spend has landed, or with the error of a settle that failed.
   */
  settleThen(
    budgets: readonly ApplicableBudget[],
    reservation: Reservation,
    actual: { micros: number; tokens: number },
    done: (err: Error | undefined, remainingMicros?: number) => void,
    now?: number,
  ): void {
    const leases = this.holds.get(reservation.id);
    // Not reserved here (a batch billed when it ends, or made before a reload kept another ledger): the store settles it.
    if (!leases) {
      this.source.settle(budgets, reservation, actual, now).then(
        (r) => done(undefined, r.remainingMicros),
        (err: Error) => done(err),
      );
      return;
    }
    this.holds.delete(reservation.id);
    const real = { micros: Math.max(0, Math.round(actual.micros)), tokens: Math.max(0, Math.round(actual.tokens)) };
    const held = { micros: Math.max(0, reservation.micros), tokens: Math.max(0, reservation.tokens) };
    const wait = new SettleWait(done);
    for (const lease of leases) {
      wait.waiting++;
      if (!this.unreturned.has(lease)) {
        // Returned already (the ledger closed under a live request): its spend goes to the store on its own.
        this.source.settle([lease.budget], { id: `${reservation.id}:late`, micros: 0, tokens: 0 }, real, lease.takenAt).then(
          () => wait.landed(),
          (err: Error) => wait.landed(err),
        );
        continue;
      }
      add(lease.spent, real);
      lease.waiters.push(wait);
      this.drop(lease, held);
    }
    // known once every lease is settled on, before any lands
    wait.remaining = remainingOf(leases);
    wait.landed();
  }

  async spent(budgets: readonly ApplicableBudget[], now?: number): Promise<Map<string, { micros: number; tokens: number; resetAt: number | null }>> {
    const at = now ?? this.clock();
    const out = await this.source.spent(budgets, at);
    // What this instance spent on leases the store has not been told of yet.
    for (const lease of [...this.unreturned, ...this.landing.keys()]) {
      const entry = out.get(lease.budget.id);
      if (!entry) continue;
      const a = planOf(lease.budget, lease.takenAt);
      const b = planOf(lease.budget, at);
      if (a.series !== b.series || a.to < b.from || a.to > b.to) continue;
      entry.micros += lease.spent.micros;
      entry.tokens += lease.spent.tokens;
    }
    return out;
  }

  /** Live requests on leases of this instance. */
  get liveCount(): number {
    return this.holds.size;
  }

  /** Stops the heartbeat and the lease timer without returning anything (tests play an instance that died). */
  stopHeartbeat(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.source.stopHeartbeat();
  }

  /** Returns every lease (with what was spent on it so far), then closes the store's ledger. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    for (const lease of [...this.unreturned]) {
      lease.open = false;
      this.giveBack(lease);
    }
    this.slots.clear();
    await Promise.allSettled([...this.landing.values()]);
    await this.source.close();
  }

  /**
   * Holds `want` on an open lease of the budget's current window, taking a lease when none has
   * room. The hold is made in the same turn as the room is checked (requests waiting on one
   * lease being taken resume one after another, each seeing the others' holds).
   */
  private async leaseFor(budget: ApplicableBudget, want: Amount, at: number): Promise<TakeResult> {
    const slot = this.slotOf(budget, at);
    for (let tries = 0; ; tries++) {
      const lease = slot.open;
      if (lease && lease.open && at - lease.takenAt < this.options.intervalMs && fits(lease, want)) {
        this.prefetch(slot, lease, budget, want, at);
        hold(lease, want);
        return { ok: true, lease };
      }
      if (lease) {
        slot.open = undefined;
        this.adapt(slot, lease, at);
        this.retire(lease);
      }
      if (slot.spare) {
        slot.open = slot.spare;
        slot.spare = undefined;
        continue;
      }
      // A lease another request is taking may be too small for this one: after two, take one for it alone.
      if (tries >= 2) {
        const alone = await this.take(budget, want, at, slot, true);
        if (alone.ok) hold(alone.lease, want);
        return alone;
      }
      slot.taking ??= this.take(budget, want, at, slot, false);
      const got = await slot.taking;
      if (!got.ok) return got;
    }
  }

  /** The budget's slot for the window `at` is in (made, and earlier windows' slots dropped, on its first request). */
  private slotOf(budget: ApplicableBudget, at: number): Slot {
    const window = windowOfBudget(budget.budget);
    const to = window.index(at);
    let named = this.slotKeys.get(budget.id);
    if (named === undefined || named.to !== to || named.series !== window.series) {
      named = { series: window.series, to, key: `${budget.id}\u0000${window.series}\u0000${to}` };
      if (this.slotKeys.size >= 100_000) this.slotKeys.clear();
      this.slotKeys.set(budget.id, named);
    }
    let slot = this.slots.get(named.key);
    if (!slot) {
      slot = { scale: 1, leases: new Set(), change: 0, inFlight: 0, sends: 0, underWay: 0 };
      this.slots.set(named.key, slot);
      if (this.slots.size > 1) this.dropOtherWindows(budget.id, named.key);
    }
    return slot;
  }

  /** Holds `want` on the budget's open lease when it has room (what leaseFor does first, without an await); undefined: a lease must be taken. */
  private holdOnOpenLease(budget: ApplicableBudget, want: Amount, at: number): Lease | undefined {
    const slot = this.slotOf(budget, at);
    const lease = slot.open;
    if (!lease || !lease.open || at - lease.takenAt >= this.options.intervalMs || !fits(lease, want)) return undefined;
    this.prefetch(slot, lease, budget, want, at);
    hold(lease, want);
    return lease;
  }

  /** Sizes the next leases by how fast this one was used: a busy budget takes fewer, larger leases. */
  private adapt(slot: Slot, lease: Lease, at: number): void {
    const life = at - lease.takenAt;
    if (life < this.options.intervalMs / 4) slot.scale = Math.min(MAX_SCALE, slot.scale * 2);
    else if (life >= this.options.intervalMs && (lease.held.micros + lease.spent.micros) * 4 < lease.size.micros) slot.scale = Math.max(1, slot.scale / 2);
  }

  /** Takes the next lease in the background once the open one is half used. */
  private prefetch(slot: Slot, lease: Lease, budget: ApplicableBudget, want: Amount, at: number): void {
    if (slot.spare || slot.taking) return;
    const halfUsed =
      (lease.size.micros > 0 && (lease.held.micros + lease.spent.micros + want.micros) * 2 >= lease.size.micros) ||
      (lease.size.tokens > 0 && (lease.held.tokens + lease.spent.tokens + want.tokens) * 2 >= lease.size.tokens);
    if (!halfUsed && at - lease.takenAt < this.options.intervalMs / 2) return;
    slot.taking = this.take(budget, want, at, slot, false);
    void slot.taking.catch(() => undefined);
  }

  /**
   * Reserves a lease on the store: `requests` × the asking request's cost, at most `share` of
   * what was left; if that does not fit, the request's cost alone. `alone`: the lease is
   * handed to the caller only (not offered to others).
   */
  private take(budget: ApplicableBudget, want: Amount, at: number, slot: Slot, alone: boolean): Promise<TakeResult> {
    const work = this.reserveLease(budget, want, at, slot, alone);
    if (!alone) void this.untilTaken(slot, work);
    return work;
  }

  /** The store's reservation of a lease (see take). A method, not a closure per lease: see SettleWait. */
  private async reserveLease(budget: ApplicableBudget, want: Amount, at: number, slot: Slot, alone: boolean): Promise<TakeResult> {
    const requests = this.options.requests * slot.scale;
    let size = { micros: want.micros * requests, tokens: want.tokens * requests };
    if (slot.lastLeft !== undefined) size.micros = Math.min(size.micros, Math.floor(slot.lastLeft * this.options.share));
    size = { micros: Math.max(size.micros, want.micros), tokens: Math.max(size.tokens, want.tokens) };
    let taken: Lease | undefined;
    // The lease counts among the slot's in the turn the store's answer is counted (see counted).
    const take = (id: string, amount: Amount) =>
      this.reserveInStore(slot, budget, { id, ...amount }, at, () => {
        taken = { id, budget, takenAt: at, size: amount, held: { micros: 0, tokens: 0 }, spent: { micros: 0, tokens: 0 }, live: 0, open: true, slot, waiters: [] };
        slot.leases.add(taken);
      });
    let result = await take(this.nextId(), size);
    if (!result.ok && !('storeDown' in result) && (size.micros > want.micros || size.tokens > want.tokens)) {
      size = { ...want };
      result = await take(this.nextId(), size);
    }
    const lease = taken as Lease | undefined;
    if (!result.ok || !lease) return result.ok ? { ok: false, storeDown: true } : result;
    if (result.remainingMicros !== undefined) slot.lastLeft = result.remainingMicros;
    this.unreturned.add(lease);
    this.startTimer();
    if (alone) lease.open = false;
    else if (!slot.open) slot.open = lease;
    else if (!slot.spare) slot.spare = lease;
    else {
      lease.open = false;
      this.retire(lease);
    }
    return { ok: true, lease };
  }

  /**
   * A reservation of the slot's budget in the store (a lease, or what a carried lease holds),
   * counted in what is left; while it is under way its room counts as this instance's, and
   * `taken` runs in the turn its answer is counted.
   */
  private reserveInStore(slot: Slot, budget: ApplicableBudget, reservation: Reservation, at: number, taken: () => void): Promise<ReserveResult> {
    return this.counted(
      slot,
      -reservation.micros,
      reservation.micros,
      () => this.source.reserve([budget], reservation, at),
      (r) => (r.ok ? r.remainingMicros : undefined),
      (r) => r.ok,
      taken,
    );
  }

  /** A settle of the slot's budget in the store for `spent` of a reservation of `size`, counted in what is left. */
  private settleInStoreOf(slot: Slot, budget: ApplicableBudget, reservation: Reservation, spent: Amount, takenAt: number): Promise<{ remainingMicros?: number }> {
    return this.counted(
      slot,
      reservation.micros - spent.micros,
      0,
      () => this.source.settle([budget], reservation, spent, takenAt),
      (r) => r.remainingMicros,
      () => true,
    );
  }

  /**
   * A store operation on the slot's budget that changes what is left of its money by `change`,
   * counted from when it is sent (`inFlight`: the room it reserves, this instance's meanwhile).
   * Its answer (what the store has left after it) sets the slot's base when it was alone under
   * way. One that fails, or that the store refused, is taken back. `then` runs in the same turn
   * as the answer is counted, so that what remains never counts a lease twice or not at all.
   */
  private async counted<T>(
    slot: Slot,
    change: number,
    inFlight: number,
    op: () => Promise<T>,
    left: (answer: T) => number | undefined,
    applied: (answer: T) => boolean,
    then?: () => void,
  ): Promise<T> {
    slot.change += change;
    slot.inFlight += inFlight;
    const changeWith = slot.change;
    const alone = slot.underWay++ === 0;
    const sentAs = ++slot.sends;
    let answer: T;
    try {
      answer = await op();
    } catch (err) {
      slot.underWay--;
      slot.inFlight -= inFlight;
      slot.change -= change;
      throw err;
    }
    slot.underWay--;
    slot.inFlight -= inFlight;
    if (!applied(answer)) {
      slot.change -= change;
      return answer;
    }
    const remaining = left(answer);
    // (the first answer sets it even so: what remains is then known, if only about right)
    if (remaining !== undefined && ((alone && slot.sends === sentAs) || slot.base === undefined)) slot.base = remaining - changeWith;
    then?.();
    return answer;
  }

  /** The slot takes no new lease while `work` is under way (its failure is the askers' to see). */
  private async untilTaken(slot: Slot, work: Promise<TakeResult>): Promise<void> {
    try {
      await work;
    } catch {
      // the requests waiting on it see the failure
    }
    if (slot.taking === work) slot.taking = undefined;
  }

  private nextId(): string {
    return `${this.prefix}${(this.seq++).toString(36)}`;
  }

  /** A request's holds given back unused (a later budget refused it, or the store was down). */
  private release(leases: readonly Lease[], held: Amount): void {
    for (const lease of leases) this.drop(lease, held);
  }

  private drop(lease: Lease, held: Amount): void {
    sub(lease.held, held);
    lease.live--;
    if (!lease.open && lease.live === 0) this.giveBack(lease);
  }

  /** Takes no new requests; returned once its last request settles, its spend so far carried meanwhile. */
  private retire(lease: Lease): void {
    lease.open = false;
    if (lease.live === 0) this.giveBack(lease);
    else void this.carry(lease);
  }

  /**
   * A closed lease that live requests (a long stream) still hold: its live requests move to a
   * new reservation of what they hold, and the old one is settled for what was spent on it, so
   * settled spend reaches the store without waiting for the longest request. Near the limit the
   * new reservation may not fit beside the old one: the lease then waits for its last request.
   */
  private async carry(lease: Lease): Promise<void> {
    if (lease.carrying || !lease.waiters.length) return;
    lease.carrying = true;
    const need = { ...lease.held };
    const id = this.nextId();
    const slot = lease.slot;
    // Moved in the turn the new reservation is counted (see counted).
    const moved = () => {
      if (!this.unreturned.has(lease) || lease.live === 0) {
        // Every request settled meanwhile (the lease went back as a whole): the new reservation is not needed.
        void this.settleInStoreOf(slot, lease.budget, { id, ...need }, { micros: 0, tokens: 0 }, lease.takenAt).catch(() => undefined);
        return;
      }
      const old = { id: lease.id, size: lease.size, spent: lease.spent, waiters: lease.waiters };
      lease.id = id;
      lease.size = need;
      lease.spent = { micros: 0, tokens: 0 };
      lease.waiters = [];
      this.settleInStore(lease, old);
    };
    await this.reserveInStore(slot, lease.budget, { id, ...need }, lease.takenAt, moved).catch(() => undefined);
    lease.carrying = false;
  }

  /** Settles the lease in the store for what was spent on it (in the window it was taken in). */
  private giveBack(lease: Lease): void {
    if (!this.unreturned.has(lease)) return;
    this.unreturned.delete(lease);
    lease.slot.leases.delete(lease);
    this.settleInStore(lease, { id: lease.id, size: lease.size, spent: lease.spent, waiters: lease.waiters });
  }

  /** Settles `part` of `lease` (all of it, or what it held before a carry) in the store, in the window and slot the lease was taken in. */
  private settleInStore(lease: Lease, part: LeasePart): void {
    // Counted by spent() until it has landed.
    const pending = { budget: lease.budget, takenAt: lease.takenAt, spent: part.spent };
    this.landing.set(pending, undefined);
    const work = this.land(pending, part, lease.slot);
    // (landed already when the store answered in this turn)
    if (this.landing.has(pending)) this.landing.set(pending, work);
  }

  /** A lease's spend to the store, then its waiters told (whether or not the store took it: a failed settle expires by itself). */
  private async land(pending: Landing, part: LeasePart, slot: Slot): Promise<void> {
    try {
      await this.settleInStoreOf(slot, pending.budget, { id: part.id, ...part.size }, { ...part.spent }, pending.takenAt);
    } catch {
      // the reservation expires by itself
    }
    this.landing.delete(pending);
    for (const wait of part.waiters) wait.landed();
  }

  /** A budget's slots of earlier windows: their leases stop taking requests. */
  private dropOtherWindows(budgetId: string, current: string): void {
    for (const [key, slot] of this.slots) {
      if (key === current || !key.startsWith(`${budgetId}\u0000`)) continue;
      if (slot.taking) continue;
      if (slot.open) this.retire(slot.open);
      if (slot.spare) this.retire(slot.spare);
      this.slots.delete(key);
    }
  }

  /** Every `interval`: leases open that long stop taking requests (and idle ones are returned). */
  private startTimer(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.sweep(), Math.max(10, Math.floor(this.options.intervalMs / 2)));
    this.timer.unref();
  }

  private sweep(): void {
    const now = this.clock();
    for (const [key, slot] of this.slots) {
      for (const lease of [slot.open, slot.spare]) {
        if (!lease || now - lease.takenAt < this.options.intervalMs) continue;
        if (slot.open === lease) {
          slot.open = undefined;
          this.adapt(slot, lease, now);
        } else slot.spare = undefined;
        this.retire(lease);
      }
      if (!slot.open && !slot.spare && !slot.taking) this.slots.delete(key);
    }
    // Closed leases held by long requests: what was settled on them goes to the store.
    for (const lease of this.unreturned) if (!lease.open && lease.live > 0 && lease.waiters.length) void this.carry(lease);
    if (!this.unreturned.size && !this.holds.size && !this.slots.size) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}

/**
 * One settle waiting for its spend to land: one count for the settle call until every lease is
 * settled on, then one per lease. A class rather than a closure per request: its method is one
 * long-lived function, whose optimized code V8 keeps (a closure made per request had its code
 * dropped and compiled again and again under load).
 */
class SettleWait {
  waiting = 1;
  /** The tightest money budget's remaining microdollars, once every lease is settled on. */
  remaining: number | undefined = undefined;
  private answered = false;

  constructor(private readonly done: (err: Error | undefined, remainingMicros?: number) => void) {}

  /** A lease's spend landed (or the settle call is over); `done` once the last has, or at the first failure. */
  landed(err?: Error): void {
    if (this.answered) return;
    if (err) {
      this.answered = true;
      this.done(err);
    } else if (--this.waiting === 0) {
      this.answered = true;
      this.done(undefined, this.remaining);
    }
  }
}

/**
 * The tightest money budget's remaining microdollars: what the store has left of each lease's
 * budget (as of its latest answer, with this instance's operations sent since), plus the room
 * not yet held or spent on this instance's leases of it.
 */
function remainingOf(leases: readonly Lease[]): number | undefined {
  let remaining: number | undefined;
  for (const lease of leases) {
    const slot = lease.slot;
    if (slot.base === undefined) continue;
    let left = slot.base + slot.change + slot.inFlight;
    for (const own of slot.leases) left += own.size.micros - own.held.micros - own.spent.micros;
    left = Math.max(0, left);
    if (remaining === undefined || left < remaining) remaining = left;
  }
  return remaining;
}
