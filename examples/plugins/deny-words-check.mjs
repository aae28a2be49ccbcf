// An example guardrail check written with the public plugin API: `deny-words` fails a text that
// holds one of the configured words (whole words, any case). A guardrail names it by `type`:
//   guardrails:
//     no-secrets:
//       checks:
//         - { type: deny-words, words: [confidential, internal-only] }
// and a routing config (x-gateway-config) lists the guardrail in input_guardrails or
// output_guardrails. A failed input check answers 422 guardrail_failed; nothing goes upstream.
import { defineCheck } from 'pipeline-gateway/plugin';

export default defineCheck({
  name: 'deny-words',
  description: 'Fails a text that holds one of the listed words.',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['type', 'words'],
    properties: {
      type: { description: 'The check kind.', const: 'deny-words' },
      words: { description: 'Words the text may not hold (any case).', type: 'array', minItems: 1, items: { type: 'string', pattern: '^[\\w-]+$' } },
    },
  },
  create(config) {
    const pattern = new RegExp(`\\b(${config.words.join('|')})\\b`, 'i');
    // The detail names the rule, never the matched text (it goes into the error message).
    return ({ text }) => (pattern.test(text) ? { passed: false, detail: 'a denied word' } : { passed: true, detail: 'no denied word' });
  },
});
