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
  /** The chat model calls the tool once per entry, all in one turn. */
  parallel?: Json[];
  /** The Anthropic model thinks (a signed block) before its tool_use. */
  thinking?: boolean;
  /** The usage the chat model reports for its tool-calling turn. */
  usage?: Json;
} = { tool: 'add', args: { a: 2, b: 3 } };

function send(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

const USAGE = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

/** An OpenAI-compatible chat model: calls the planned tool, then answers with what the tool said. */
export function chatModel(req: ReceivedRequest, res: ServerResponse): void {
  const body = req.json();
  const last = body.messages.at(-1);
  if (last.role === 'tool') {
    if (plan.hangAfterTool) return;
    send(res, {
      id: 'chatcmpl-2',
      object: 'chat.completion',
      created: 1,
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content: `The tool said: ${last.content}` }, finish_reason: 'stop' }],
      usage: USAGE,
    });
    return;
  }
  const fn = (body.tools ?? []).find((t: Json) => t.function.name.endsWith(`__${plan.tool}`));
  if (!fn) {
    send(res, {
      id: 'chatcmpl-0',
      object: 'chat.completion',
      created: 1,
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content: 'No tool.' }, finish_reason: 'stop' }],
      usage: USAGE,
    });
    return;
  }
  send(res, {
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
  });
}

/** An Anthropic model: tool_use of the planned tool, then text with the tool_result. */
export function anthropicModel(req: ReceivedRequest, res: ServerResponse): void {
  const body = req.json();
  const last = body.messages.at(-1);
  const result = Array.isArray(last.content) ? last.content.find((b: Json) => b.type === 'tool_result') : undefined;
  const usage = { input_tokens: 10, output_tokens: 5 };
  if (result) {
    const text = typeof result.content === 'string' ? result.content : result.content.map((b: Json) => b.text).join('');
    send(res, { id: 'msg_2', type: 'message', role: 'assistant', model: body.model, content: [{ type: 'text', text: `The tool said: ${text}` }], stop_reason: 'end_turn', usage });
    return;
  }
  const tool = (body.tools ?? []).find((t: Json) => t.name.endsWith(`__${plan.tool}`));
  send(res, {
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
  });
}

/** OpenAI's own Responses API: a function_call of the planned tool, then a message with its output. */
export function responsesModel(req: ReceivedRequest, res: ServerResponse): void {
  const body = req.json();
  const usage = { input_tokens: 10, output_tokens: 5, total_tokens: 15 };
  const output = body.input.find((i: Json) => i.type === 'function_call_output');
  const base = { object: 'response', created_at: 1, model: body.model, status: 'completed', usage };
  if (output) {
    send(res, {
      ...base,
      id: 'resp_up_2',
      output: [
        { id: 'msg_up', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: `The tool said: ${output.output}`, annotations: [] }] },
      ],
    });
    return;
  }
  const tool = body.tools.find((t: Json) => t.type === 'function' && t.name.endsWith(`__${plan.tool}`));
  send(res, {
    ...base,
    id: 'resp_up_1',
    output: [{ id: 'fc_up', type: 'function_call', status: 'completed', call_id: 'call_up_1', name: tool.name, arguments: JSON.stringify(plan.args) }],
  });
}

export const MCP_TOOL = { type: 'mcp' as const, server_label: 'remote', require_approval: 'never' as const };

/** A Gemini model (generateContent): a functionCall of the planned tool, then text quoting the functionResponse. */
export function geminiModel(req: ReceivedRequest, res: ServerResponse): void {
  const body = req.json();
  const usageMetadata = { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 };
  const last = body.contents.at(-1);
  const answered = (last?.parts ?? []).find((p: Json) => p.functionResponse);
  if (answered) {
    const response = answered.functionResponse.response;
    const text = typeof response?.content === 'string' ? response.content : typeof response?.result === 'string' ? response.result : JSON.stringify(response);
    send(res, { candidates: [{ content: { role: 'model', parts: [{ text: `The tool said: ${text}` }] }, finishReason: 'STOP', index: 0 }], usageMetadata });
    return;
  }
  const declarations = (body.tools ?? []).flatMap((t: Json) => t.functionDeclarations ?? []);
  const fn = declarations.find((d: Json) => d.name.endsWith(`__${plan.tool}`));
  send(res, { candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: fn.name, args: plan.args } }] }, finishReason: 'STOP', index: 0 }], usageMetadata });
}
