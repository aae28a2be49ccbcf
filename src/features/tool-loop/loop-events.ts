/**
 * What a tool loop tells a streaming caller as it happens, as OpenAI's Responses events
 * (response.mcp_list_tools.*, response.mcp_call_arguments.*, response.mcp_call.*, and the
 * output_item / content_part / output_text events of the model's own items). A loop without a
 * stream uses SILENT_EVENTS.
 */
import type { StreamPart } from '../../contract/stream-parts.js';
import { PartQueue } from './part-queue.js';

type Json = Record<string, unknown>;

/** The moments of a loop a stream shows. */
export interface LoopEvents {
  /** A whole output item of the model (message, reasoning, a function call for the caller) or an approval request. */
  item(index: number, item: Json): void;
  listStarted(index: number, item: Json): void;
  listEnded(index: number, item: Json, failed: boolean): void;
  callStarted(index: number, item: Json): void;
  callEnded(index: number, item: Json, failed: boolean): void;
  /** A message or reasoning item of a streamed model call starts (empty); its text follows as it comes. */
  streamStarted(index: number, item: Json): void;
  /** More text of the streamed item (`item` holds the text so far). */
  streamDelta(index: number, item: Json, text: string): void;
  /** The streamed item is whole (a reasoning item with its signature as encrypted_content). */
  streamEnded(index: number, item: Json): void;
}

export const SILENT_EVENTS: LoopEvents = {
  item() {},
  listStarted() {},
  listEnded() {},
  callStarted() {},
  callEnded() {},
  streamStarted() {},
  streamDelta() {},
  streamEnded() {},
};

/**
 * The loop's events as stream parts (Responses SSE events, passed through by the edge's writer),
 * handed to the reader as they come. `end` closes the stream after the last event.
 */
export class LoopEventStream implements LoopEvents, AsyncIterable<StreamPart> {
  private sequence = 0;
  private readonly queue = new PartQueue();

  private push(type: string, data: Json): void {
    this.queue.push({ type: 'event', event: type, data: JSON.stringify({ type, sequence_number: this.sequence++, ...data }) });
  }

  /** response.created and response.in_progress, with the response as it starts. */
  start(response: Json): void {
    this.push('response.created', { response });
    this.push('response.in_progress', { response });
  }

  /** The last event (response.completed, response.incomplete or response.failed) and the end of the stream. */
  end(response: Json): void {
    const type = response.status === 'failed' ? 'response.failed' : response.status === 'incomplete' ? 'response.incomplete' : 'response.completed';
    this.push(type, { response });
    this.queue.close();
  }

  /** An error event (the OpenAI SDK raises it) and the end of the stream. */
  fail(error: Json): void {
    this.push('error', { code: error.code ?? null, message: error.message ?? 'The tool loop failed.', param: error.param ?? null });
    this.queue.close();
  }

  item(index: number, item: Json): void {
    if (item.type === 'message') {
      const parts: Json[] = Array.isArray(item.content) ? item.content : [];
      this.push('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress', content: [] } });
      parts.forEach((part, content_index) => {
        if (part?.type !== 'output_text') {
          this.push('response.content_part.added', { item_id: item.id, output_index: index, content_index, part });
          this.push('response.content_part.done', { item_id: item.id, output_index: index, content_index, part });
          return;
        }
        const text = String(part.text ?? '');
        this.push('response.content_part.added', { item_id: item.id, output_index: index, content_index, part: { ...part, text: '' } });
        if (text !== '') this.push('response.output_text.delta', { item_id: item.id, output_index: index, content_index, delta: text, logprobs: [] });
        this.push('response.output_text.done', { item_id: item.id, output_index: index, content_index, text, logprobs: [] });
        this.push('response.content_part.done', { item_id: item.id, output_index: index, content_index, part });
      });
      this.push('response.output_item.done', { output_index: index, item });
      return;
    }
    if (item.type === 'function_call') {
      this.push('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress', arguments: '' } });
      this.push('response.function_call_arguments.delta', { item_id: item.id, output_index: index, delta: String(item.arguments ?? '') });
      this.push('response.function_call_arguments.done', { item_id: item.id, output_index: index, arguments: String(item.arguments ?? '') });
      this.push('response.output_item.done', { output_index: index, item });
      return;
    }
    this.push('response.output_item.added', { output_index: index, item });
    this.push('response.output_item.done', { output_index: index, item });
  }

  listStarted(index: number, item: Json): void {
    this.push('response.output_item.added', { output_index: index, item: { ...item, tools: [] } });
    this.push('response.mcp_list_tools.in_progress', { item_id: item.id, output_index: index });
  }

  listEnded(index: number, item: Json, failed: boolean): void {
    this.push(failed ? 'response.mcp_list_tools.failed' : 'response.mcp_list_tools.completed', { item_id: item.id, output_index: index });
    this.push('response.output_item.done', { output_index: index, item: { ...item } });
  }

  callStarted(index: number, item: Json): void {
    const args = String(item.arguments ?? '');
    this.push('response.output_item.added', { output_index: index, item: { ...item, arguments: '' } });
    this.push('response.mcp_call_arguments.delta', { item_id: item.id, output_index: index, delta: args });
    this.push('response.mcp_call_arguments.done', { item_id: item.id, output_index: index, arguments: args });
    this.push('response.mcp_call.in_progress', { item_id: item.id, output_index: index });
  }

  callEnded(index: number, item: Json, failed: boolean): void {
    this.push(failed ? 'response.mcp_call.failed' : 'response.mcp_call.completed', { item_id: item.id, output_index: index });
    this.push('response.output_item.done', { output_index: index, item: { ...item } });
  }

  streamStarted(index: number, item: Json): void {
    if (item.type === 'message') {
      this.push('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress', content: [] } });
      this.push('response.content_part.added', { item_id: item.id, output_index: index, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
    } else {
      this.push('response.output_item.added', { output_index: index, item: { id: item.id, type: 'reasoning', summary: [], content: [] } });
      this.push('response.content_part.added', { item_id: item.id, output_index: index, content_index: 0, part: { type: 'reasoning_text', text: '' } });
    }
  }

  streamDelta(index: number, item: Json, text: string): void {
    if (item.type === 'message') this.push('response.output_text.delta', { item_id: item.id, output_index: index, content_index: 0, delta: text, logprobs: [] });
    else this.push('response.reasoning_text.delta', { item_id: item.id, output_index: index, content_index: 0, delta: text });
  }

  streamEnded(index: number, item: Json): void {
    const part: Json = structuredClone((item.content as Json[] | null | undefined)?.[0] ?? {});
    const text = String(part.text ?? '');
    if (item.type === 'message') {
      this.push('response.output_text.done', { item_id: item.id, output_index: index, content_index: 0, text, logprobs: [] });
      this.push('response.content_part.done', { item_id: item.id, output_index: index, content_index: 0, part });
    } else {
      this.push('response.reasoning_text.done', { item_id: item.id, output_index: index, content_index: 0, text });
      this.push('response.content_part.done', { item_id: item.id, output_index: index, content_index: 0, part });
    }
    this.push('response.output_item.done', { output_index: index, item: structuredClone(item) });
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamPart> {
    return this.queue[Symbol.asyncIterator]();
  }
}
