type Listener = () => void;

/**
 * Whether the caller of a request went away, as the cheapest object undici's request API takes
 * as `signal` (`aborted`, `reason`, `on`/`once`/`removeListener('abort')`): one per request
 * instead of an AbortController and its EventTarget. The context makes a real AbortSignal from
 * it only when a stage asks for `ctx.signal`.
 */
export class CallerSignal {
  aborted = false;
  reason: unknown = undefined;
  /** One listener as it is (the usual case: undici's), an array from the second on. */
  private listeners: Listener | Listener[] | undefined;

  /** The caller went away: listeners run once. */
  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = new DOMException('The caller went away.', 'AbortError');
    const listeners = this.listeners;
    this.listeners = undefined;
    if (typeof listeners === 'function') listeners();
    else if (listeners) for (const fn of listeners) fn();
  }

  on(event: string, fn: Listener): this {
    if (event !== 'abort' || this.aborted) return this;
    const list = this.listeners;
    if (list === undefined) this.listeners = fn;
    else if (typeof list === 'function') this.listeners = [list, fn];
    else list.push(fn);
    return this;
  }

  /** Listeners run at most once anyway (abort happens once). */
  once(event: string, fn: Listener): this {
    return this.on(event, fn);
  }

  removeListener(event: string, fn: Listener): this {
    const list = this.listeners;
    if (event !== 'abort' || !list) return this;
    if (list === fn) {
      this.listeners = undefined;
      return this;
    }
    if (typeof list === 'function') return this;
    const at = list.indexOf(fn);
    if (at >= 0) list.splice(at, 1);
    return this;
  }

  off(event: string, fn: Listener): this {
    return this.removeListener(event, fn);
  }
}
