/**
 * OpenAI's `response_format` for providers without a JSON mode of their own.
 * - json_schema, when the request has no tools of its own and the provider can force a tool:
 *   a forced tool named `json_response` whose input schema is the caller's schema; its input
 *   is returned as the answer's text (finish_reason "stop"), so the JSON always parses and
 *   follows the schema.
 * - otherwise (json_object, or json_schema beside the caller's tools): an instruction added to
 *   the system prompt asking for JSON only (with the schema when there is one).
 */
import { isJsonObject, objectOf } from '../../../../contract/json.js';

export const JSON_RESPONSE_TOOL = 'json_response';

export type JsonResponseMode = { kind: 'tool'; name: string; description: string; schema: Record<string, unknown> } | { kind: 'instruction'; text: string };

export function jsonResponseMode(request: Record<string, unknown>, options: { forcedTool: boolean }): JsonResponseMode | undefined {
  const format = request.response_format;
  if (!isJsonObject(format)) return undefined;
  if (format.type === 'json_schema') {
    const jsonSchema = objectOf(format.json_schema);
    const schema = isJsonObject(jsonSchema.schema) ? jsonSchema.schema : { type: 'object' };
    const hasTools = Array.isArray(request.tools) && request.tools.length > 0;
    if (options.forcedTool && !hasTools) {
      const name = typeof jsonSchema.name === 'string' ? ` (${jsonSchema.name})` : '';
      const about = typeof jsonSchema.description === 'string' ? ` ${jsonSchema.description}` : '';
      return { kind: 'tool', name: JSON_RESPONSE_TOOL, description: `Give the final answer${name} as this tool's input.${about}`, schema };
    }
    return {
      kind: 'instruction',
      text: `Answer with one JSON value that follows this JSON Schema, and nothing else (no prose, no code fences):\n${JSON.stringify(schema)}`,
    };
  }
  if (format.type === 'json_object') {
    return { kind: 'instruction', text: 'Answer with one JSON object and nothing else (no prose, no code fences).' };
  }
  return undefined;
}

/** True when the answer comes back as the input of the forced json_response tool. */
export function answersThroughJsonTool(request: Record<string, unknown>, forcedTool: boolean): boolean {
  return jsonResponseMode(request, { forcedTool })?.kind === 'tool';
}
