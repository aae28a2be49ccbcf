import type { ContainsCheck } from '../../../generated/checks/contains.js';
import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import { ExtensionConfigError } from '../../../kernel/engine/extension.js';
import { defineCheck } from '../check-kind.js';
import type { Redaction } from '../text-view.js';
import { need } from './need.js';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A word or phrase as a pattern: whole words where it starts or ends with a word character. */
function phrasePattern(phrase: string, caseSensitive: boolean): RegExp {
  const head = /^\w/.test(phrase) ? '\\b' : '';
  const tail = /\w$/.test(phrase) ? '\\b' : '';
  return new RegExp(`${head}${escapeRegExp(phrase)}${tail}`, caseSensitive ? 'g' : 'gi');
}

/** Words or phrases present: any, all or none of them must be for the check to pass (redact masks forbidden ones). */
export default defineCheck<ContainsCheck>({
  name: 'contains',
  description: 'Looks for words or phrases; passes when any, all or none of them are present.',
  schema: schemaDocument('checks/contains.schema.json'),
  create(check, { path }) {
    const problems: string[] = [];
    if (!need(check, 'words', 'contains', 'the words or phrases', path, problems)) throw new ExtensionConfigError(problems);
    const patterns = check.words!.map((w) => ({ word: w, re: phrasePattern(w, check.caseSensitive === true) }));
    const operator = check.operator ?? 'any';
    const invert = check.not === true;
    return ({ text }) => {
      const redactions: Redaction[] = [];
      let present = 0;
      for (const { re } of patterns) {
        let hit = false;
        for (const m of text.matchAll(re)) {
          hit = true;
          redactions.push({ start: m.index!, end: m.index! + m[0].length, mask: '[REDACTED]' });
        }
        if (hit) present++;
      }
      let passed = operator === 'any' ? present > 0 : operator === 'all' ? present === patterns.length : present === 0;
      if (invert) passed = !passed;
      const detail = `${present} of ${patterns.length} listed word(s) present (operator ${operator}${invert ? ', inverted' : ''})`;
      // Only words that are present and must not be can be masked.
      const maskable = !passed && (operator === 'none') !== invert;
      return { passed, detail, redactions: maskable ? redactions : undefined };
    };
  },
});
