import type { RegexCheck } from '../../../generated/checks/regex.js';
import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import { ExtensionConfigError } from '../../../kernel/engine/extension.js';
import { compileCheckedRegExp } from '../../../kernel/text/catastrophic-regex.js';
import { defineCheck } from '../check-kind.js';
import type { Redaction } from '../text-view.js';
import { need } from './need.js';

/**
 * Fails when the pattern matches (each match masked by redact); with `not: true`, when it does not.
 * The pattern is the operator's (guardrails.<id>): RegExp, refused at load when its shape can backtrack catastrophically.
 */
export default defineCheck<RegexCheck>({
  name: 'regex',
  description: 'Fails when a regular expression matches the text (or, with not: true, when it does not).',
  schema: schemaDocument('checks/regex.schema.json'),
  create(check, { path }) {
    const problems: string[] = [];
    if (!need(check, 'pattern', 'regex', 'the pattern', path, problems)) throw new ExtensionConfigError(problems);
    let re: RegExp;
    try {
      const flags = check.flags ?? '';
      re = compileCheckedRegExp(check.pattern!, flags.includes('g') ? flags : `${flags}g`);
    } catch (err) {
      throw new ExtensionConfigError([`${path}.pattern: ${(err as Error).message}`]);
    }
    const invert = check.not === true;
    return ({ text }) => {
      const redactions: Redaction[] = [];
      for (const m of text.matchAll(re)) if (m[0].length) redactions.push({ start: m.index!, end: m.index! + m[0].length, mask: '[REDACTED]' });
      const matched = redactions.length > 0;
      if (invert) return { passed: matched, detail: matched ? 'the pattern matched' : 'the text does not match the required pattern' };
      return { passed: !matched, detail: matched ? `the pattern matched ${redactions.length} time(s)` : 'no match', redactions };
    };
  },
});
