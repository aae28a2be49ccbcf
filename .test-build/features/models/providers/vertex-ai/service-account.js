/**
 * A Google service account key (the JSON file the Cloud console hands out), as it reaches the
 * gateway: an object (routing target), a JSON string, or base64 of that JSON (headers).
 */
import { badRequest } from '../../../../contract/errors/gateway-error.js';
export const SERVICE_ACCOUNT_PARAM = 'x-gateway-vertex-service-account-json';
const DEFAULT_TOKEN_URI = 'https://oauth2.googleapis.com/token';
/** Parses the key; a bad one is a 400 that names the parameter and never echoes the key. */
export function parseServiceAccount(value) {
    const raw = typeof value === 'string' ? decode(value.trim()) : value;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
        throw invalid('it is not a JSON object');
    const key = raw;
    if (typeof key.client_email !== 'string' || key.client_email === '')
        throw invalid('client_email is missing');
    if (typeof key.private_key !== 'string' || !key.private_key.includes('PRIVATE KEY'))
        throw invalid('private_key is missing or not a PEM key');
    return {
        client_email: key.client_email,
        // Keys pasted through environment variables often carry "\n" as two characters.
        private_key: key.private_key.includes('\\n') ? key.private_key.replace(/\\n/g, '\n') : key.private_key,
        private_key_id: typeof key.private_key_id === 'string' ? key.private_key_id : undefined,
        token_uri: typeof key.token_uri === 'string' && key.token_uri !== '' ? key.token_uri : DEFAULT_TOKEN_URI,
        project_id: typeof key.project_id === 'string' && key.project_id !== '' ? key.project_id : undefined,
    };
}
function decode(text) {
    const json = text.startsWith('{') ? text : Buffer.from(text, 'base64').toString('utf8');
    try {
        return JSON.parse(json);
    }
    catch {
        throw invalid('it is neither JSON nor base64-encoded JSON');
    }
}
function invalid(reason) {
    return badRequest(`${SERVICE_ACCOUNT_PARAM} must be a service account key (JSON, or base64 of it, with client_email and private_key): ${reason}.`, SERVICE_ACCOUNT_PARAM);
}
//# sourceMappingURL=service-account.js.map