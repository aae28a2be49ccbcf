import type { PiiCheck } from '../../../generated/checks/pii.js';
import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import { defineCheck } from '../check-kind.js';
import { findPii, PII_CATEGORIES, piiMask, type PiiCategory } from '../pii.js';

/** Fails when the text holds personal data of the listed kinds; redact masks each as [REDACTED_<KIND>]. */
export default defineCheck<PiiCheck>({
  name: 'pii',
  description: 'Fails when the text holds personal data (emails, phone numbers, SSNs, cards, IP addresses, IBANs).',
  schema: schemaDocument('checks/pii.schema.json'),
  create(check) {
    const categories = new Set<PiiCategory>((check.categories as PiiCategory[] | undefined) ?? PII_CATEGORIES);
    return ({ text }) => {
      const found = findPii(text, categories);
      if (!found.length) return { passed: true, detail: 'no personal data' };
      const kinds = [...new Set(found.map((f) => f.category))];
      return {
        passed: false,
        detail: `found ${kinds.join(', ')}`,
        redactions: found.map((f) => ({ start: f.start, end: f.end, mask: piiMask(f.category) })),
      };
    };
  },
});
