import type { ModelAllowListCheck } from '../../../generated/checks/modelAllowList.js';
import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import { ExtensionConfigError } from '../../../kernel/engine/extension.js';
import { defineCheck } from '../check-kind.js';
import { need } from './need.js';
import { wildcard, type Wildcard } from '../../../kernel/text/wildcard.js';

function globPattern(glob: string): Wildcard {
  return wildcard(glob, { question: true, ignoreCase: true });
}

/** Fails when the request names a model outside the list (names or * ? patterns); runs on requests without text too. */
export default defineCheck<ModelAllowListCheck>({
  name: 'modelAllowList',
  description: 'Fails when the request names a model outside the allow-list.',
  schema: schemaDocument('checks/modelAllowList.schema.json'),
  runsWithoutText: true,
  create(check, { path }) {
    const problems: string[] = [];
    if (!need(check, 'models', 'modelAllowList', 'the allowed models', path, problems)) throw new ExtensionConfigError(problems);
    const allowed = check.models!.map(globPattern);
    return ({ model }) => {
      if (model === undefined) return { passed: true, detail: 'no model in the request' };
      const ok = allowed.some((re) => re.test(model));
      return { passed: ok, detail: ok ? `model ${model} is allowed` : `model ${model} is not in the allow-list` };
    };
  },
});
