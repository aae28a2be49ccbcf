/** Fake models for the tool-loop tests: each calls the planned tool of the gateway's offer, then answers with what the tool said. */
import type { ServerResponse } from 'node:http';
import type { ReceivedRequest } from '../../helpers/fake-upstream.js';

type Json = Record<string, any>;

/** What the fake models call: a tool name and its arguments. */
/** `hangAfterTool`: the chat model never answers the turn after a tool result. */
export const plan: {
  tool: string;
  args: Json;
  hangAfterTool?: boolean;
  /** The chat model calls the tool again on every turn (it never answers). */
  repeat?: boolean;
  /** The chat model answers the turn after a tool result with a 400 error. */
  failAfterTool?: boolean;
  /** The chat model calls the tool once per entry, all in one turn. */
  parallel?: Json[];
  /** The Anthropic model thinks (a signed block) before its tool_use; OpenAI's Responses model gives an encrypted reasoning item. */
  thinking?: boolean;
  /** The usage the chat model reports for its tool-calling turn. */
  usage?: Json;
  /** A streamed answer's text stops after its first piece until this settles (the caller must have seen that piece by then). */
  gate?: Promise<void>;
} = { tool: 'add', args: { a: 2, b: 3 } };

type Wire = 'chat' | 'anthropic' | 'responses' | 'gemini';

/** The answer as JSON, or, when the request asked for a stream, as the provider's SSE events (text in pieces). */
function send(res: ServerResponse, body: Json, req?: ReceivedRequest, wire?: Exclude<Wire, 'gemini'>): void {
  const asked = req?.json();
  if (!wire || asked?.stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    return;
  }
  const events = wire === 'chat' ? chatEvents(body, asked.stream_options?.include_usage === true) : wire === 'anthropic' ? anthropicEvents(body) : responsesEvents(body);
  streams.push({ wire, events: events.map((e) => e.data) });
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  void (async () => {
    let gated = false;
    for (const e of events) {
      res.write(`${e.event ? `event: ${e.event}\n` : ''}data: ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}\n\n`);
      if (plan.gate && !gated && textPiece(e.data)) {
        gated = true;
        await plan.gate;
      }
    }
    res.end();
  })();
}

/** Whether an event carries a piece of answer text (a chat content delta, an Anthropic text_delta, a Responses output_text.delta). */
function textPiece(data: unknown): boolean {
  const d = data as Json;
  return Boolean(d?.choices?.[0]?.delta?.content || d?.delta?.type === 'text_delta' || d?.type === 'response.output_text.delta');
}

/** The streams the fakes sent, in order (for tests that compare what the caller saw with what the model sent). */
export const streams: Array<{ wire: Wire; events: unknown[] }> = [];

/** Text in the pieces a streaming model sends (one per word). */
export function pieces(text: string): string[] {
  return text.split(/(?<= )/);
}

type Sse = { event?: string; data: unknown };

/** A chat.completion as OpenAI chunks: role, content by word, each tool call (name, then its arguments in two halves), finish, usage when asked. */
function chatEvents(completion: Json, usage: boolean): Sse[] {
  const base = { id: completion.id, object: 'chat.completion.chunk', created: completion.created, model: completion.model };
  const chunk = (delta: Json, finish: string | null = null): Sse => ({ data: { ...base, choices: [{ index: 0, delta, finish_reason: finish }] } });
  const choice = completion.choices[0];
  const message = choice.message;
  const out: Sse[] = [chunk({ role: 'assistant', content: '' })];
  if (typeof message.reasoning_content === 'string') for (const piece of pieces(message.reasoning_content)) out.push(chunk({ reasoning_content: piece }));
  if (typeof message.content === 'string') for (const piece of pieces(message.content)) out.push(chunk({ content: piece }));
  (message.tool_calls ?? []).forEach((call: Json, index: number) => {
    out.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }));
    const args = String(call.function.arguments);
    const half = Math.floor(args.length / 2);
    for (const part of [args.slice(0, half), args.slice(half)]) out.push(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
  });
  out.push(chunk({}, choice.finish_reason));
  if (usage && completion.usage) out.push({ data: { ...base, choices: [], usage: completion.usage } });
  out.push({ data: '[DONE]' });
  return out;
}

/** An Anthropic message as its stream: thinking and text by word (thinking's signature last), tool_use input in two halves. */
function anthropicEvents(message: Json): Sse[] {
  const event = (type: string, data: Json): Sse => ({ event: type, data: { type, ...data } });
  const out: Sse[] = [event('message_start', { message: { ...message, content: [], stop_reason: null, usage: { input_tokens: message.usage.input_tokens, output_tokens: 1 } } })];
  message.content.forEach((block: Json, index: number) => {
    if (block.type === 'thinking') {
      out.push(event('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } }));
      for (const piece of pieces(block.thinking)) out.push(event('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: piece } }));
      out.push(event('content_block_delta', { index, delta: { type: 'signature_delta', signature: block.signature } }));
    } else if (block.type === 'text') {
      out.push(event('content_block_start', { index, content_block: { type: 'text', text: '' } }));
      for (const piece of pieces(block.text)) out.push(event('content_block_delta', { index, delta: { type: 'text_delta', text: piece } }));
    } else if (block.type === 'tool_use') {
      out.push(event('content_block_start', { index, content_block: { ...block, input: {} } }));
      const args = JSON.stringify(block.input);
      const half = Math.floor(args.length / 2);
      for (const part of [args.slice(0, half), args.slice(half)]) out.push(event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: part } }));
    }
    out.push(event('content_block_stop', { index }));
  });
  out.push(event('message_delta', { delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: message.usage.output_tokens } }));
  out.push(event('message_stop', {}));
  return out;
}

/** A Responses response as OpenAI's Responses events: each item added, its text by word or its arguments, done; then response.completed. */
function responsesEvents(response: Json): Sse[] {
  let seq = 0;
  const event = (type: string, data: Json): Sse => ({ event: type, data: { type, sequence_number: seq++, ...data } });
  const out: Sse[] = [event('response.created', { response: { ...response, status: 'in_progress', output: [] } })];
  response.output.forEach((item: Json, output_index: number) => {
    if (item.type === 'message') {
      const text = item.content[0].text;
      out.push(event('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } }));
      out.push(event('response.content_part.added', { item_id: item.id, output_index, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }));
      for (const piece of pieces(text)) out.push(event('response.output_text.delta', { item_id: item.id, output_index, content_index: 0, delta: piece, logprobs: [] }));
      out.push(event('response.output_text.done', { item_id: item.id, output_index, content_index: 0, text, logprobs: [] }));
      out.push(event('response.content_part.done', { item_id: item.id, output_index, content_index: 0, part: item.content[0] }));
    } else if (item.type === 'reasoning') {
      out.push(event('response.output_item.added', { output_index, item: { ...item, summary: [], encrypted_content: null } }));
    } else {
      out.push(event('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } }));
      out.push(event('response.function_call_arguments.delta', { item_id: item.id, output_index, delta: item.arguments }));
      out.push(event('response.function_call_arguments.done', { item_id: item.id, output_index, arguments: item.arguments }));
    }
    out.push(event('response.output_item.done', { output_index, item }));
  });
  out.push(event('response.completed', { response }));
  return out;
}

const USAGE = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

/** An OpenAI-compatible chat model: calls the planned tool, then answers with what the tool said. */
export function chatModel(req: ReceivedRequest, res: ServerResponse): void {
  const body = req.json();
  const last = body.messages.at(-1);
  if (last.role === 'tool' && !plan.repeat) {
    if (plan.hangAfterTool) return;
    if (plan.failAfterTool) {
      res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'The model refused the turn.', type: 'invalid_request_error', code: null } }));
      return;
    }
    send(
      res,
      {
        id: 'chatcmpl-2',
        object: 'chat.completion',
        created: 1,
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: `The tool said: ${last.content}` }, finish_reason: 'stop' }],
        usage: USAGE,
      },
      req,
      'chat',
    );
    return;
  }
  const fn = (body.tools ?? []).find((t: Json) => t.function.name.endsWith(`__${plan.tool}`));
  if (!fn) {
    send(
      res,
      {
        id: 'chatcmpl-0',
        object: 'chat.completion',
        created: 1,
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: 'No tool.' }, finish_reason: 'stop' }],
        usage: USAGE,
      },
      req,
      'chat',
    );
    return;
  }
  send(
    res,
    {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: body.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: (plan.parallel ?? [plan.args]).map((args, i) => ({
              id: `call_${i + 1}`,
              type: 'function',
              function: { name: fn.function.name, arguments: JSON.stringify(args) },
            })),
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: plan.usage ?? USAGE,
    },
    req,
    'chat',
  );
}

/** An Anthropic model: tool_use of the planned tool, then text with the tool_result. */
export function anthropicModel(req: ReceivedRequest, res: ServerResponse): void {
  const body = req.json();
  const last = body.messages.at(-1);
  const result = Array.isArray(last.content) ? last.content.find((b: Json) => b.type === 'tool_result') : undefined;
  const usage = { input_tokens: 10, output_tokens: 5 };
  if (result) {
    const text = typeof result.content === 'string' ? result.content : result.content.map((b: Json) => b.text).join('');
    send(
      res,
      { id: 'msg_2', type: 'message', role: 'assistant', model: body.model, content: [{ type: 'text', text: `The tool said: ${text}` }], stop_reason: 'end_turn', usage },
      req,
      'anthropic',
    );
    return;
  }
  const tool = (body.tools ?? []).find((t: Json) => t.name.endsWith(`__${plan.tool}`));
  send(
    res,
    {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: [
        ...(plan.thinking ? [{ type: 'thinking', thinking: 'The sum needs the add tool.', signature: 'sig-thinking-1' }] : []),
        { type: 'tool_use', id: 'toolu_1', name: tool.name, input: plan.args },
      ],
      stop_reason: 'tool_use',
      usage,
    },
    req,
    'anthropic',
  );
}

/** OpenAI's own Responses API: a function_call of the planned tool, then a message with its output. */
export function responsesModel(req: ReceivedRequest, res: ServerResponse): void {
  const body = req.json();
  const usage = { input_tokens: 10, output_tokens: 5, total_tokens: 15 };
  const output = body.input.find((i: Json) => i.type === 'function_call_output');
  const base = { object: 'response', created_at: 1, model: body.model, status: 'completed', usage };
  if (output) {
    send(
      res,
      {
        ...base,
        id: 'resp_up_2',
        output: [
          { id: 'msg_up', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: `The tool said: ${output.output}`, annotations: [] }] },
        ],
      },
      req,
      'responses',
    );
    return;
  }
  const tool = body.tools.find((t: Json) => t.type === 'function' && t.name.endsWith(`__${plan.tool}`));
  send(
    res,
    {
      ...base,
      id: 'resp_up_1',
      output: [
        ...(plan.thinking ? [{ id: 'rs_up', type: 'reasoning', summary: [{ type: 'summary_text', text: 'Needs the tool.' }], encrypted_content: 'enc-reasoning-1' }] : []),
        { id: 'fc_up', type: 'function_call', status: 'completed', call_id: 'call_up_1', name: tool.name, arguments: JSON.stringify(plan.args) },
      ],
    },
    req,
    'responses',
  );
}

export const MCP_TOOL = { type: 'mcp' as const, server_label: 'remote', require_approval: 'never' as const };

/** A Gemini model (generateContent): a functionCall of the planned tool, then text quoting the functionResponse. */
export function geminiModel(req: ReceivedRequest, res: ServerResponse): void {
  send(res, geminiAnswer(req.json()));
}

/**
 * The same Gemini model streaming (streamGenerateContent?alt=sse): text by word, one candidate
 * chunk each (finishReason and usageMetadata on the last), a functionCall in one chunk; the
 * functionCall carries a thought signature, which must come back with the call.
 */
export function geminiStreamModel(req: ReceivedRequest, res: ServerResponse): void {
  const answer = geminiAnswer(req.json());
  const candidate = answer.candidates[0];
  const parts: Json[] = candidate.content.parts;
  const chunks: Json[] = [];
  for (const part of parts) {
    if (typeof part.text === 'string') for (const piece of pieces(part.text)) chunks.push({ candidates: [{ content: { role: 'model', parts: [{ text: piece }] }, index: 0 }] });
    else chunks.push({ candidates: [{ content: { role: 'model', parts: [{ ...part, thoughtSignature: 'gemini-sig-1' }] }, index: 0 }] });
  }
  chunks.at(-1)!.candidates[0].finishReason = candidate.finishReason;
  chunks.at(-1)!.usageMetadata = answer.usageMetadata;
  streams.push({ wire: 'gemini', events: chunks });
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const chunk of chunks) res.write(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
  res.end();
}

function geminiAnswer(body: Json): Json {
  const usageMetadata = { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 };
  const last = body.contents.at(-1);
  const answered = (last?.parts ?? []).find((p: Json) => p.functionResponse);
  if (answered) {
    const response = answered.functionResponse.response;
    const text = typeof response?.content === 'string' ? response.content : typeof response?.result === 'string' ? response.result : JSON.stringify(response);
    return { candidates: [{ content: { role: 'model', parts: [{ text: `The tool said: ${text}` }] }, finishReason: 'STOP', index: 0 }], usageMetadata };
  }
  const declarations = (body.tools ?? []).flatMap((t: Json) => t.functionDeclarations ?? []);
  const fn = declarations.find((d: Json) => d.name.endsWith(`__${plan.tool}`));
  return { candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: fn.name, args: plan.args } }] }, finishReason: 'STOP', index: 0 }], usageMetadata };
}
