import { GatewayError } from '../../../../contract/errors/gateway-error.js';
import type { StreamPart } from '../../../../contract/stream-parts.js';

/**
 * Tool calls of one streamed answer. Providers key their calls by their own block index
 * (which may count text blocks too); OpenAI numbers tool calls 0..n-1 in order of appearance.
 * A call whose arguments never came gets "{}" when it ends, as its whole answer would show.
 */
export class ToolCallStream {
  private readonly calls = new Map<string | number, { index: number; hasArgs: boolean }>();
  private next = 0;

  constructor(
    private readonly provider: string,
    private readonly choice = 0,
  ) {}

  get count(): number {
    return this.next;
  }

  has(key: string | number): boolean {
    return this.calls.has(key);
  }

  start(key: string | number, id: string, name: string): StreamPart {
    const index = this.next++;
    this.calls.set(key, { index, hasArgs: false });
    return { type: 'tool-call-start', choice: this.choice, index, id, name };
  }

  args(key: string | number, text: string): StreamPart | undefined {
    const call = this.calls.get(key);
    if (!call) throw new GatewayError('provider_error', `${this.provider} streamed tool call arguments before the call started.`, { provider: this.provider });
    if (typeof text !== 'string' || text === '') return undefined;
    call.hasArgs = true;
    return { type: 'tool-call-args', choice: this.choice, index: call.index, args: text };
  }

  /** Ends a call; returns "{}" arguments when none were streamed. */
  stop(key: string | number): StreamPart | undefined {
    const call = this.calls.get(key);
    if (!call || call.hasArgs) return undefined;
    call.hasArgs = true;
    return { type: 'tool-call-args', choice: this.choice, index: call.index, args: '{}' };
  }
}
