import { schemaDocument } from '../../../../kernel/config/schema-validator.js';
import { ExtensionConfigError } from '../../../../kernel/engine/extension.js';
import { defineCheck } from '../check-kind.js';
import { need } from './need.js';
function escapeRegExp(text) {
    return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
function globPattern(glob) {
    return new RegExp(`^${glob.split('*').map((part) => part.split('?').map(escapeRegExp).join('.')).join('.*')}$`, 'i');
}
/** Fails when the request names a model outside the list (names or * ? patterns); runs on requests without text too. */
export default defineCheck({
    name: 'modelAllowList',
    description: 'Fails when the request names a model outside the allow-list.',
    schema: schemaDocument('checks/modelAllowList.schema.json'),
    runsWithoutText: true,
    create(check, { path }) {
        const problems = [];
        if (!need(check, 'models', 'modelAllowList', 'the allowed models', path, problems))
            throw new ExtensionConfigError(problems);
        const allowed = check.models.map(globPattern);
        return ({ model }) => {
            if (model === undefined)
                return { passed: true, detail: 'no model in the request' };
            const ok = allowed.some((re) => re.test(model));
            return { passed: ok, detail: ok ? `model ${model} is allowed` : `model ${model} is not in the allow-list` };
        };
    },
});
//# sourceMappingURL=model-allow-list.js.map