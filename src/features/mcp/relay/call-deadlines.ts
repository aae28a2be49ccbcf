type Id = string | number;

/** After the tool server asks the client something in a call's course, the call waits this long at least (a person may be answering). */
export const CLIENT_ANSWER_MS = 10 * 60_000;

interface Deadline {
  due: number;
  asked: boolean;
  timer: NodeJS.Timeout;
}

/**
 * The call timeout of relayed requests (mcpServers.<name>.timeout): `ms` without word from the
 * tool server about a request (its progress, its log messages), and `expired` is called for it.
 * Once the server asked the client something in the request's course, the wait is at least
 * CLIENT_ANSWER_MS from then on. A request answered (or given up) is `done`.
 */
export class CallDeadlines {
  private readonly calls = new Map<Id, Deadline>();

  constructor(
    private readonly ms: number,
    private readonly expired: (id: Id) => void,
  ) {}

  get size(): number {
    return this.calls.size;
  }

  start(id: Id): void {
    this.done(id);
    const deadline: Deadline = { due: Date.now() + this.ms, asked: false, timer: undefined as unknown as NodeJS.Timeout };
    deadline.timer = this.arm(id, deadline, this.ms);
    this.calls.set(id, deadline);
  }

  /** The server said something about the request: its wait starts again. */
  activity(id: Id): void {
    const deadline = this.calls.get(id);
    if (deadline) deadline.due = Date.now() + this.wait(deadline);
  }

  /** The server asked the client something in the request's course. */
  asked(id: Id): void {
    const deadline = this.calls.get(id);
    if (!deadline) return;
    deadline.asked = true;
    this.activity(id);
  }

  done(id: Id): void {
    const deadline = this.calls.get(id);
    if (!deadline) return;
    clearTimeout(deadline.timer);
    this.calls.delete(id);
  }

  clear(): void {
    for (const deadline of this.calls.values()) clearTimeout(deadline.timer);
    this.calls.clear();
  }

  private wait(deadline: Deadline): number {
    return deadline.asked ? Math.max(this.ms, CLIENT_ANSWER_MS) : this.ms;
  }

  /** One timer per request, moved on only when it fires (activity just moves `due`). */
  private arm(id: Id, deadline: Deadline, ms: number): NodeJS.Timeout {
    const timer = setTimeout(() => {
      if (this.calls.get(id) !== deadline) return;
      const left = deadline.due - Date.now();
      if (left > 0) {
        deadline.timer = this.arm(id, deadline, left);
        return;
      }
      this.calls.delete(id);
      this.expired(id);
    }, ms);
    timer.unref();
    return timer;
  }
}
