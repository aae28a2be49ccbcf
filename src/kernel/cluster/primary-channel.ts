import cluster from 'node:cluster';

/** A call from a worker to state the primary of a cluster holds for every worker. */
export interface SharedCall {
  type: 'gw-shared-call';
  id: number;
  /** Which shared state (e.g. "rate-limit", "cache"). */
  service: string;
  op: string;
  args: unknown[];
}

export interface SharedReply {
  type: 'gw-shared-reply';
  id: number;
  result?: unknown;
  error?: string;
}

/** A message one worker sends to every other worker of the cluster (the primary passes it on). */
export interface Broadcast {
  type: 'gw-broadcast';
  /** What it is about (e.g. "circuit"); listeners subscribe by topic. */
  topic: string;
  payload: unknown;
}

/** A call not answered this long fails (the primary is gone or stuck), so a request never hangs on it. */
const CALL_TIMEOUT_MS = 5000;

/**
 * The worker's side of state shared through the primary of a node:cluster (`server.workers`
 * without Redis): each call is one IPC message answered by the primary.
 */
export class PrimaryChannel {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  private readonly listeners = new Map<string, Set<(payload: unknown) => void>>();

  constructor() {
    process.on('message', (msg: SharedReply | Broadcast) => {
      if (msg?.type === 'gw-broadcast') {
        for (const listener of this.listeners.get(msg.topic) ?? []) listener(msg.payload);
        return;
      }
      if (msg?.type !== 'gw-shared-reply') return;
      const call = this.pending.get(msg.id);
      if (!call) return;
      this.pending.delete(msg.id);
      clearTimeout(call.timer);
      if (msg.error !== undefined) call.reject(new Error(msg.error));
      else call.resolve(msg.result);
    });
  }

  /** Sends `payload` to every other worker listening on `topic` (fire and forget). */
  broadcast(topic: string, payload: unknown): void {
    const message: Broadcast = { type: 'gw-broadcast', topic, payload };
    process.send!(message, undefined, undefined, () => undefined);
  }

  /** Calls `listener` with each payload another worker broadcasts on `topic`; returns the unsubscribe. */
  onBroadcast(topic: string, listener: (payload: unknown) => void): () => void {
    let set = this.listeners.get(topic);
    if (!set) this.listeners.set(topic, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  call<T>(service: string, op: string, args: unknown[]): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const id = this.nextId++;
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`the cluster primary did not answer (${service}.${op})`));
      }, CALL_TIMEOUT_MS);
      timer.unref();
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      const message: SharedCall = { type: 'gw-shared-call', id, service, op, args };
      process.send!(message, undefined, undefined, (err: Error | null) => {
        if (!err) return;
        this.pending.delete(id);
        clearTimeout(timer);
        reject(err);
      });
    });
  }
}

let channel: PrimaryChannel | undefined;

/** The channel to the primary when this process is a cluster worker; undefined otherwise. */
export function primaryChannel(): PrimaryChannel | undefined {
  if (!cluster.isWorker || !process.send) return undefined;
  return (channel ??= new PrimaryChannel());
}
