import type { StreamPart } from '../../contract/stream-parts.js';

/** Stream parts handed to the edge as they are pushed; after `close`, the reader gets what is left, then the end. */
export class PartQueue implements AsyncIterable<StreamPart> {
  private readonly parts: StreamPart[] = [];
  private wake: (() => void) | undefined;
  private closed = false;

  push(part: StreamPart): void {
    this.parts.push(part);
    this.wake?.();
  }

  /** The `done` part, and no more. */
  close(): void {
    this.push({ type: 'done' });
    this.closed = true;
    this.wake?.();
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamPart> {
    return {
      next: async () => {
        while (this.parts.length === 0) {
          if (this.closed) return { done: true, value: undefined };
          await new Promise<void>((resolve) => (this.wake = resolve));
          this.wake = undefined;
        }
        return { done: false, value: this.parts.shift()! };
      },
      return: async () => {
        this.closed = true;
        return { done: true, value: undefined };
      },
    };
  }
}
