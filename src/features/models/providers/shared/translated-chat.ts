/**
 * OpenAI chat request shapes as a translated provider (one without OpenAI's API) takes them.
 * Providers that take OpenAI's body as it is get every shape untouched; for the others,
 * `allowed_tools` becomes the tools it allows plus its mode and legacy `functions` become
 * function tools (faithful equivalents everywhere), and what no translation carries (custom
 * tools, their calls and choice, audio output, web search options, OpenAI's moderation policy)
 * is a 422 naming the field and the provider (a well-formed value this provider cannot honour),
 * before anything is sent.
 */
import { badRequest, semanticError } from '../../../../contract/errors/gateway-error.js';
import type { OperationAdapter } from '../provider.js';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A tool's identity for allowed_tools: its type and name (`function.name`, `custom.name`, or a flat `name`). */
function toolKey(tool: unknown): string | undefined {
  if (!isObject(tool) || typeof tool.type !== 'string') return undefined;
  const inner = tool[tool.type];
  const name = isObject(inner) && typeof inner.name === 'string' ? inner.name : typeof tool.name === 'string' ? tool.name : undefined;
  return name === undefined ? undefined : `${tool.type}:${name}`;
}

/**
 * A chat request whose tool_choice is `allowed_tools`: the tools it lists (the others dropped)
 * and its mode as the tool_choice. Listing none of the request's tools leaves the tools in place
 * with tool_choice `none` (mode auto) or is a 400 (mode required). Other requests come back as they are.
 */
export function resolveAllowedTools(request: Json): Json {
  const choice = request.tool_choice;
  if (!isObject(choice) || choice.type !== 'allowed_tools') return request;
  const allowed = isObject(choice.allowed_tools) ? choice.allowed_tools : {};
  const keys = new Set((Array.isArray(allowed.tools) ? allowed.tools : []).map(toolKey).filter((k): k is string => k !== undefined));
  const tools: unknown[] = Array.isArray(request.tools) ? request.tools : [];
  const kept = tools.filter((t) => keys.has(toolKey(t) ?? ''));
  if (kept.length === 0) {
    if (allowed.mode === 'required')
      throw badRequest('tool_choice.allowed_tools.tools names none of the request\'s tools, and mode "required" needs one.', 'tool_choice.allowed_tools.tools');
    return { ...request, tool_choice: 'none' };
  }
  return { ...request, tools: kept, tool_choice: allowed.mode === 'required' ? 'required' : 'auto' };
}

function cannotCarry(provider: string, what: string, param: string): never {
  throw semanticError(`${provider} cannot carry ${what}: only OpenAI's API and the OpenAI-compatible providers take it.`, param);
}

/** Legacy `functions` and `function_call` as the function tools and tool_choice they stand for (when no tools are given). */
function toolsOfFunctions(request: Json): Json {
  if (!Array.isArray(request.functions) || request.functions.length === 0 || (Array.isArray(request.tools) && request.tools.length > 0)) return request;
  const { functions, function_call: call, ...rest } = request;
  const out: Json = { ...rest, tools: functions.map((fn: unknown) => ({ type: 'function', function: fn })) };
  if (call === 'none' || call === 'auto') out.tool_choice = call;
  else if (isObject(call) && typeof call.name === 'string') out.tool_choice = { type: 'function', function: { name: call.name } };
  return out;
}

/** The request checked for what `provider`'s translation cannot carry, allowed_tools and functions resolved. */
export function translatableChat(request: Json, provider: string): Json {
  if (!isObject(request)) return request;
  const out = resolveAllowedTools(toolsOfFunctions(request));
  const choice = out.tool_choice;
  if (isObject(choice) && choice.type !== 'function') cannotCarry(provider, `a tool_choice of type "${String(choice.type)}"`, 'tool_choice.type');
  if (Array.isArray(out.tools)) {
    const tools: unknown[] = out.tools;
    tools.forEach((tool, i) => {
      const type = isObject(tool) ? tool.type : undefined;
      if (type !== 'function') cannotCarry(provider, `tools of type "${String(type)}"`, `${paramOfTool(request, tool, i)}.type`);
    });
  }
  if (Array.isArray(out.messages)) {
    out.messages.forEach((message: unknown, i: number) => {
      const calls = isObject(message) ? message.tool_calls : undefined;
      if (!Array.isArray(calls)) return;
      calls.forEach((call: unknown, j: number) => {
        const type = isObject(call) ? call.type : undefined;
        if (type !== undefined && type !== 'function') cannotCarry(provider, `tool calls of type "${String(type)}"`, `messages[${i}].tool_calls[${j}].type`);
      });
    });
  }
  if (out.moderation !== undefined && out.moderation !== null) cannotCarry(provider, "OpenAI's moderation policy", 'moderation');
  if (out.audio !== undefined && out.audio !== null) cannotCarry(provider, 'audio output', 'audio');
  if (Array.isArray(out.modalities) && out.modalities.includes('audio')) cannotCarry(provider, 'audio output', 'modalities');
  if (out.web_search_options !== undefined && out.web_search_options !== null) cannotCarry(provider, 'web_search_options', 'web_search_options');
  return out;
}

/** The param of a tool as the caller sent it (its index in the caller's list, before allowed_tools dropped any). */
function paramOfTool(request: Json, tool: unknown, index: number): string {
  const original = Array.isArray(request.tools) ? request.tools.indexOf(tool) : -1;
  return `tools[${original >= 0 ? original : index}]`;
}

/** A chat adapter whose requests are checked and shaped by `translatableChat` before its translation runs. */
export function translatedChatAdapter(adapter: OperationAdapter, provider: string): OperationAdapter {
  return {
    ...adapter,
    request: (call, instance) => adapter.request({ ...call, body: translatableChat(call.body ?? {}, provider), rawBody: undefined }, instance),
  };
}
