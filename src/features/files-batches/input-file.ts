import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { isJsonObject } from '../../contract/json.js';

/** Most requests in one batch (the spec recommends 1,000 to 50,000). */
export const MAX_BATCH_LINES = 50_000;
const MAX_ERRORS = 100;

export interface InputLine {
  line_no: number;
  custom_id: string;
  body: string;
}

export interface InputProblem {
  code: string;
  message: string;
  param: string | null;
  line: number | null;
}

/**
 * Reads a batch input file (JSONL) line by line, never whole: each non-blank line must be an
 * object with a unique `custom_id`, `method` POST, `url` equal to the batch's endpoint and a
 * `body` object that does not ask to stream. Good lines go to `accept` in groups; any
 * problem fails the whole batch (the problems are returned, at most 100).
 */
export async function readInputFile(path: string, endpoint: string, accept: (lines: InputLine[]) => Promise<void>): Promise<{ count: number; problems: InputProblem[] }> {
  const problems: InputProblem[] = [];
  const seen = new Set<string>();
  let group: InputLine[] = [];
  let count = 0;
  let physical = 0;
  const problem = (code: string, message: string, param: string | null = null) => {
    if (problems.length < MAX_ERRORS) problems.push({ code, message, param, line: physical });
  };
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const text of lines) {
    physical++;
    if (text.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      problem('invalid_json_line', `Line ${physical} is not valid JSON.`);
      continue;
    }
    if (!isJsonObject(parsed)) {
      problem('invalid_request', `Line ${physical} is not a JSON object.`);
      continue;
    }
    if (typeof parsed.custom_id !== 'string' || parsed.custom_id === '') {
      problem('missing_required_parameter', `Line ${physical} has no custom_id.`, 'custom_id');
      continue;
    }
    if (parsed.custom_id.includes('\0')) {
      // The id names the line's result in the store, whose text (PostgreSQL's) cannot hold a NUL.
      problem('invalid_request', `Line ${physical}: custom_id holds a NUL character.`, 'custom_id');
      continue;
    }
    if (seen.has(parsed.custom_id)) {
      problem('duplicate_custom_id', `custom_id ${parsed.custom_id} appears more than once (line ${physical}).`, 'custom_id');
      continue;
    }
    seen.add(parsed.custom_id);
    if (parsed.method !== 'POST') problem('invalid_method', `Line ${physical}: method must be POST.`, 'method');
    else if (parsed.url !== endpoint) problem('mismatched_endpoint', `Line ${physical}: url must be the batch's endpoint ${endpoint}.`, 'url');
    else if (!isJsonObject(parsed.body)) problem('invalid_request', `Line ${physical}: body must be an object.`, 'body');
    else if (parsed.body.stream === true) problem('invalid_request', `Line ${physical}: a batch request cannot stream.`, 'body.stream');
    else {
      count++;
      if (count > MAX_BATCH_LINES) {
        problem('too_many_requests', `A batch holds at most ${MAX_BATCH_LINES} requests.`);
        break;
      }
      if (problems.length === 0) {
        group.push({ line_no: count, custom_id: parsed.custom_id, body: JSON.stringify(parsed.body) });
        if (group.length >= 500) {
          await accept(group);
          group = [];
        }
      }
    }
  }
  if (problems.length === 0 && group.length) await accept(group);
  if (problems.length === 0 && count === 0) problems.push({ code: 'empty_file', message: 'The input file has no requests.', param: 'input_file_id', line: null });
  return { count, problems };
}
