import type { ProviderCall } from '../provider.js';
import { chatCompletion, type ChatAnswer } from '../shared/openai-answer.js';
import { finishReason, usageFrom } from './finish.js';
import { isJsonObject, objectOf, objectsOf } from '../../../../contract/json.js';
import { notAnAnswer } from '../shared/answer-shape.js';

/**
 * A Cohere v2 chat answer -> an OpenAI chat.completion. The tool plan is the text before the
 * tool calls; thinking content (reasoning models) becomes `reasoning_content`.
 */
export function fromCohereChat(raw: unknown, call: ProviderCall) {
  const body = objectOf(raw);
  if (!isJsonObject(body.message)) throw notAnAnswer('cohere', 'a chat answer');
  const message = body.message;
  let text = '';
  let reasoning = '';
  for (const part of objectsOf(message.content)) {
    if (part.type === 'text') text += String(part.text ?? '');
    else if (part.type === 'thinking') reasoning += String(part.thinking ?? '');
  }
  const toolCalls = objectsOf(message.tool_calls).map((c) => ({
    id: String(c.id),
    name: String(objectOf(c.function).name),
    arguments: toolArguments(objectOf(c.function).arguments),
  }));
  if (toolCalls.length > 0 && text === '' && typeof message.tool_plan === 'string') text = message.tool_plan;
  const answer: ChatAnswer = {
    id: String(body.id ?? ''),
    model: String(objectOf(call.body).model ?? ''),
    text,
    toolCalls,
    finishReason: finishReason(body.finish_reason),
    usage: usageFrom(body.usage),
  };
  if (reasoning !== '') answer.reasoning = reasoning;
  return chatCompletion(answer);
}

/** Tool arguments as JSON object text: Cohere sends null (or "null") for a call without arguments. */
export function toolArguments(args: unknown): string {
  if (args === undefined || args === null || args === '' || args === 'null') return '{}';
  return typeof args === 'string' ? args : JSON.stringify(args);
}
