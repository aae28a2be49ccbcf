import type { CharacterCountCheck } from '../../../generated/checks/characterCount.js';
import type { WordCountCheck } from '../../../generated/checks/wordCount.js';
import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import { ExtensionConfigError } from '../../../kernel/engine/extension.js';
import { defineCheck, type CheckRun } from '../check-kind.js';

function countCheck(check: { type: string; min?: number; max?: number }, label: string, path: string, count: (text: string) => number): CheckRun {
  if (check.min === undefined && check.max === undefined) throw new ExtensionConfigError([`${path}: a ${check.type} check needs min or max`]);
  const bounds = [check.min !== undefined ? `at least ${check.min}` : '', check.max !== undefined ? `at most ${check.max}` : ''].filter(Boolean).join(' and ');
  return ({ text }) => {
    const n = count(text);
    const passed = !(check.min !== undefined && n < check.min) && !(check.max !== undefined && n > check.max);
    return { passed, detail: passed ? `${n} ${label}` : `${n} ${label}, expected ${bounds}` };
  };
}

/** Fails when the text has fewer than min or more than max words. */
export const wordCount = defineCheck<WordCountCheck>({
  name: 'wordCount',
  description: 'Counts the words of the text; fails outside min..max.',
  schema: schemaDocument('checks/wordCount.schema.json'),
  create: (check, { path }) => countCheck(check, 'words', path, (t) => (t.trim() ? t.trim().split(/\s+/).length : 0)),
});

/** Fails when the text has fewer than min or more than max characters. */
export const characterCount = defineCheck<CharacterCountCheck>({
  name: 'characterCount',
  description: 'Counts the characters of the text; fails outside min..max.',
  schema: schemaDocument('checks/characterCount.schema.json'),
  create: (check, { path }) => countCheck(check, 'characters', path, (t) => [...t].length),
});
