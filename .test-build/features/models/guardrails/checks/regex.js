import { schemaDocument } from '../../../../kernel/config/schema-validator.js';
import { ExtensionConfigError } from '../../../../kernel/engine/extension.js';
import { defineCheck } from '../check-kind.js';
import { need } from './need.js';
/** Fails when the pattern matches (each match masked by redact); with `not: true`, when it does not. */
export default defineCheck({
    name: 'regex',
    description: 'Fails when a regular expression matches the text (or, with not: true, when it does not).',
    schema: schemaDocument('checks/regex.schema.json'),
    create(check, { path }) {
        const problems = [];
        if (!need(check, 'pattern', 'regex', 'the pattern', path, problems))
            throw new ExtensionConfigError(problems);
        let re;
        try {
            const flags = check.flags ?? '';
            re = new RegExp(check.pattern, flags.includes('g') ? flags : `${flags}g`);
        }
        catch (err) {
            throw new ExtensionConfigError([`${path}.pattern: is not a valid regular expression: ${err.message}`]);
        }
        const invert = check.not === true;
        return ({ text }) => {
            const redactions = [];
            for (const m of text.matchAll(re))
                if (m[0].length)
                    redactions.push({ start: m.index, end: m.index + m[0].length, mask: '[REDACTED]' });
            const matched = redactions.length > 0;
            if (invert)
                return { passed: matched, detail: matched ? 'the pattern matched' : 'the text does not match the required pattern' };
            return { passed: !matched, detail: matched ? `the pattern matched ${redactions.length} time(s)` : 'no match', redactions };
        };
    },
});
//# sourceMappingURL=regex.js.map