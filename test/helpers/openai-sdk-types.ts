import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Reads the request types of the installed `openai` SDK from its .d.ts files: the fields of
 * ChatCompletionCreateParams and the `type`/`role` literals of the unions inside it, so that a
 * newer SDK that adds a field or a variant makes the request-shape replay test fail until the
 * test replays it.
 */
const SDK_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'node_modules', 'openai');

export const SDK_VERSION: string = JSON.parse(readFileSync(join(SDK_DIR, 'package.json'), 'utf8')).version;

function source(rel: string): string {
  return readFileSync(join(SDK_DIR, rel), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
}

const CHAT = source('resources/chat/completions/completions.d.ts');
const SHARED = source('resources/shared.d.ts');

/** The text between the brace that opens at `from` and its match. */
function block(text: string, from: number): string {
  const open = text.indexOf('{', from);
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return text.slice(open + 1, i);
  }
  throw new Error('unbalanced braces in the SDK types');
}

/** The text of one declaration file that holds `name` (a dotted name looks inside its namespace). */
function scope(name: string): { text: string; local: string } {
  const [file, rest] = name.startsWith('Shared.') ? [SHARED, name.slice('Shared.'.length)] : [CHAT, name];
  const parts = rest.split('.');
  let text = file;
  for (const ns of parts.slice(0, -1)) {
    const at = text.search(new RegExp(`(?:declare )?namespace ${ns} \\{`));
    if (at < 0) throw new Error(`no namespace ${ns} in the SDK types`);
    text = block(text, at);
  }
  return { text, local: parts.at(-1)! };
}

/** The properties of an interface: name -> type text (top-level statements of its body). */
export function interfaceFields(name: string): Map<string, { type: string; optional: boolean }> {
  const { text, local } = scope(name);
  const at = text.search(new RegExp(`interface ${local}(?: extends [^{]+)? \\{`));
  if (at < 0) throw new Error(`no interface ${name} in the SDK types`);
  const body = block(text, at);
  const out = new Map<string, { type: string; optional: boolean }>();
  let depth = 0;
  let statement = '';
  for (const ch of body) {
    if (ch === '{' || ch === '<' || ch === '(') depth++;
    if (ch === '}' || ch === '>' || ch === ')') depth--;
    if (ch === ';' && depth === 0) {
      const match = /^\s*(\w+)(\?)?:\s*([\s\S]+)$/.exec(statement);
      if (match) out.set(match[1]!, { type: match[3]!.replace(/\s+/g, ' ').trim(), optional: match[2] === '?' });
      statement = '';
    } else statement += ch;
  }
  return out;
}

/** The members of `export type <name> = A | B | ...;` (or of a type text given as is). */
export function unionMembers(nameOrType: string, asType = false): string[] {
  let text = nameOrType;
  if (!asType) {
    const { text: file, local } = scope(nameOrType);
    const match = new RegExp(`export type ${local} = ([^;]+);`).exec(file);
    if (!match) throw new Error(`no type ${nameOrType} in the SDK types`);
    text = match[1]!;
  }
  const out: string[] = [];
  let depth = 0;
  let member = '';
  for (const ch of text) {
    if (ch === '{' || ch === '<' || ch === '(') depth++;
    if (ch === '}' || ch === '>' || ch === ')') depth--;
    if (ch === '|' && depth === 0) {
      out.push(member.trim());
      member = '';
    } else member += ch;
  }
  out.push(member.trim());
  return out.filter((m) => m !== '' && m !== 'null');
}

/** The string literals of a union ('a' | 'b' | Name -> ['a', 'b']). */
export function stringLiterals(members: string[]): string[] {
  return members.filter((m) => /^'[^']*'$/.test(m)).map((m) => m.slice(1, -1));
}

/** The literal of one property (`type: 'custom'`) of each interface member of a union. */
export function memberLiterals(members: string[], property: string, namespaceOf = ''): string[] {
  return members
    .filter((m) => !/^'/.test(m))
    .map((m) => {
      const name = namespaceOf ? `${namespaceOf}.${m}` : m;
      const field = interfaceFields(name).get(property);
      if (!field || !/^'[^']*'$/.test(field.type)) throw new Error(`${name}.${property} is not a string literal in the SDK types`);
      return field.type.slice(1, -1);
    });
}

/** What the replay test covers, read from the SDK. */
export function chatRequestShapes() {
  const params = interfaceFields('ChatCompletionCreateParamsBase');
  const fieldType = (name: string) => params.get(name)!.type;
  const toolChoice = unionMembers('ChatCompletionToolChoiceOption');
  const assistantContent = /Array<([^>]+)>/.exec(interfaceFields('ChatCompletionAssistantMessageParam').get('content')!.type)![1]!;
  return {
    fields: [...params.keys()],
    nullable: [...params].filter(([, f]) => /\| null$/.test(f.type) || / null \|/.test(f.type)).map(([name]) => name),
    roles: memberLiterals(unionMembers('ChatCompletionMessageParam'), 'role'),
    userParts: memberLiterals(unionMembers('ChatCompletionContentPart'), 'type'),
    assistantParts: memberLiterals(unionMembers(assistantContent, true), 'type'),
    tools: memberLiterals(unionMembers('ChatCompletionTool'), 'type'),
    customToolFormats: memberLiterals(unionMembers(interfaceFields('ChatCompletionCustomTool.Custom').get('format')!.type, true), 'type', 'ChatCompletionCustomTool'),
    toolChoiceStrings: stringLiterals(toolChoice),
    toolChoiceObjects: memberLiterals(toolChoice, 'type'),
    allowedToolsModes: stringLiterals(unionMembers(interfaceFields('ChatCompletionAllowedTools').get('mode')!.type, true)),
    toolCalls: memberLiterals(unionMembers('ChatCompletionMessageToolCall'), 'type'),
    responseFormats: memberLiterals(unionMembers(fieldType('response_format'), true), 'type'),
    reasoningEfforts: stringLiterals(unionMembers('Shared.ReasoningEffort')),
    /** Fields whose type is a union of string literals (service_tier, verbosity, ...): each literal. */
    literalFields: Object.fromEntries(
      [...params]
        .map(([name, f]) => [name, unionMembers(f.type, true)] as const)
        .filter(([, members]) => members.length > 0 && stringLiterals(members).length === members.length)
        .map(([name, members]) => [name, stringLiterals(members)]),
    ) as Record<string, string[]>,
  };
}
