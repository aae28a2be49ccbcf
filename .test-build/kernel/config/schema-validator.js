import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { SCHEMA_DIR } from '../paths.js';
const addFormats = addFormatsModule;
/**
 * One Ajv instance holding every schema in schema/, compiled once. `validatorFor` returns the
 * compiled function for a schema file name (e.g. "gateway.schema.json",
 * "requests/chat-completions.schema.json"). Nothing is coerced: "0.5" is not a number.
 */
function loadSchemas(dir, out = []) {
    for (const name of readdirSync(dir).sort()) {
        const full = join(dir, name);
        if (statSync(full).isDirectory())
            loadSchemas(full, out);
        else if (name.endsWith('.schema.json')) {
            out.push({ rel: relative(SCHEMA_DIR, full).split('\\').join('/'), schema: JSON.parse(readFileSync(full, 'utf8')) });
        }
    }
    return out;
}
let shared;
const byFile = new Map();
const documents = new Map();
/**
 * A schema of schema/ as a plain object, by its file name (e.g. "stages/retry.schema.json"):
 * the config schema of a built-in extension, handed to its registry.
 */
export function schemaDocument(file) {
    if (!documents.size)
        for (const { rel, schema } of loadSchemas(SCHEMA_DIR))
            documents.set(rel, schema);
    const doc = documents.get(file);
    if (!doc)
        throw new Error(`no schema ${file} in schema/`);
    return doc;
}
export function schemaAjv() {
    if (shared)
        return shared;
    const ajv = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true, useDefaults: false });
    addFormats(ajv);
    for (const { rel, schema } of loadSchemas(SCHEMA_DIR)) {
        ajv.addSchema(schema);
        byFile.set(rel, schema.$id);
    }
    shared = ajv;
    return ajv;
}
export function validatorFor(file) {
    const ajv = schemaAjv();
    const id = byFile.get(file);
    if (!id)
        throw new Error(`no schema ${file} in schema/`);
    return ajv.getSchema(id);
}
/** `/auth/type` -> `auth.type`; `/targets/0/provider` -> `targets[0].provider`. */
export function instancePathToKey(instancePath, prefix = '') {
    let out = prefix;
    for (const raw of instancePath.split('/').slice(1)) {
        const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
        if (/^\d+$/.test(part))
            out += `[${part}]`;
        else
            out += out ? `.${part}` : part;
    }
    return out;
}
const isSummary = (e) => e.keyword === 'oneOf' || e.keyword === 'anyOf';
const depth = (e) => (e.instancePath ? e.instancePath.split('/').length - 1 : 0);
const under = (e, summary) => e !== summary && e.schemaPath.startsWith(`${summary.schemaPath}/`);
function listWords(words) {
    return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}
/**
 * A failed oneOf/anyOf as one problem: the most telling error of its branches (the deepest,
 * a broken bound before a wrong type), or the list of accepted types when every branch is
 * only the wrong type.
 */
function resolveSummary(summary, errors, prefix) {
    const key = instancePathToKey(summary.instancePath, prefix);
    const branch = errors.filter((e) => under(e, summary));
    if (!branch.length)
        return { key, message: 'matches more than one of its allowed forms' };
    const own = depth(summary);
    if (branch.every((e) => e.keyword === 'type' && depth(e) === own)) {
        const types = [...new Set(branch.flatMap((e) => String(e.params.type).split(',')))];
        return { key, message: `must be ${listWords(types)}` };
    }
    if (branch.every((e) => e.keyword === 'required' && depth(e) === own)) {
        const missing = branch.map((e) => String(e.params.missingProperty));
        return { key, message: `needs ${listWords([...new Set(missing)])}` };
    }
    const deepest = Math.max(...branch.map(depth));
    const atDeepest = branch.filter((e) => depth(e) === deepest);
    const best = atDeepest.find((e) => e.keyword !== 'type' && !isSummary(e)) ?? atDeepest.find(isSummary) ?? atDeepest[0];
    // A type error inside a nested oneOf is better told by that oneOf.
    const nested = isSummary(best) ? best : branch.find((e) => isSummary(e) && under(best, e));
    if (nested)
        return resolveSummary(nested, errors, prefix);
    return describeError(best, prefix);
}
/** One problem per failed rule, each naming its key path; oneOf/anyOf branches folded into one. */
export function describeProblems(errors, prefix = '') {
    if (!errors?.length)
        return [];
    const summaries = errors.filter(isSummary);
    const out = [];
    const seen = new Set();
    for (const err of errors) {
        if (summaries.some((s) => under(err, s)))
            continue;
        // if/then/else: the failing branch's own errors say it better than "must match else schema".
        if (err.keyword === 'if') {
            const branch = `${err.schemaPath.slice(0, -'/if'.length)}/${err.params.failingKeyword}/`;
            if (errors.some((e) => e.schemaPath.startsWith(branch)))
                continue;
        }
        const problem = isSummary(err) ? resolveSummary(err, errors, prefix) : describeError(err, prefix);
        const line = `${problem.key}: ${problem.message}`;
        if (seen.has(line))
            continue;
        seen.add(line);
        out.push(problem);
    }
    return out;
}
/** The first problem (request validation answers one at a time). */
export function firstProblem(errors, prefix = '') {
    return describeProblems(errors, prefix)[0];
}
/** One readable line per problem, each naming the key path: `auth.type: must be one of ...`. */
export function describeErrors(errors, prefix = '') {
    return describeProblems(errors, prefix).map((p) => `${p.key || '(root)'}: ${p.message}`);
}
export function describeError(err, prefix = '') {
    let key = instancePathToKey(err.instancePath, prefix);
    const p = err.params;
    const child = (name) => (key ? `${key}.${name}` : name);
    let message;
    switch (err.keyword) {
        case 'required':
            key = child(p.missingProperty);
            message = 'is required';
            break;
        case 'additionalProperties':
            key = child(p.additionalProperty);
            message = 'is not a known key';
            break;
        case 'propertyNames':
            key = child(p.propertyName);
            message = 'is not an allowed name';
            break;
        case 'enum':
            message = `must be one of ${p.allowedValues.map(String).join(', ')}`;
            break;
        case 'const':
            message = `must be ${JSON.stringify(p.allowedValue)}`;
            break;
        case 'type':
            message = `must be ${listWords(String(p.type).split(','))}`;
            break;
        case 'oneOf':
        case 'anyOf':
            message = 'has the wrong shape or type';
            break;
        case 'minimum':
        case 'maximum':
        case 'exclusiveMinimum':
        case 'exclusiveMaximum':
            message = `must be ${p.comparison} ${p.limit}`;
            break;
        case 'maxItems':
            message = `must have at most ${p.limit} item${p.limit === 1 ? '' : 's'}`;
            break;
        case 'minItems':
            message = `must have at least ${p.limit} item${p.limit === 1 ? '' : 's'}`;
            break;
        case 'maxLength':
            message = `must be at most ${p.limit} characters`;
            break;
        case 'minLength':
            message = p.limit === 1 ? 'must not be empty' : `must be at least ${p.limit} characters`;
            break;
        case 'maxProperties':
        case 'minProperties':
            message = err.message ?? 'has the wrong number of keys';
            break;
        case 'pattern':
            message = `must match the pattern ${p.pattern}`;
            break;
        case 'format':
            message = `must be a valid ${p.format}`;
            break;
        case 'uniqueItems':
            message = 'must not repeat items';
            break;
        default:
            message = err.message ?? 'is invalid';
    }
    return { key, message };
}
//# sourceMappingURL=schema-validator.js.map