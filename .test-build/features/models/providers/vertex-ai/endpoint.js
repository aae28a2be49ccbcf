/**
 * The Vertex AI host of the Gemini format:
 * https://{region}-aiplatform.googleapis.com/v1/projects/{project}/locations/{region}/publishers/google/models/{model}:{method}
 * (the global region lives at https://aiplatform.googleapis.com). `providers.vertex-ai.baseUrl`
 * (or custom_host) replaces the scheme-and-host part. Project, region and the service account
 * come from the target's vertex_* options (x-gateway-vertex-* headers).
 */
import { badRequest, GatewayError } from '../../../../contract/errors/gateway-error.js';
import { trimSlash } from '../openai-compatible/openai-compatible.js';
import { parseServiceAccount } from './service-account.js';
const DEFAULT_REGION = 'us-central1';
const REGION = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const PROJECT = /^[a-z0-9][a-z0-9.:-]*$/i;
export function vertexEndpoint(provider, configuredBase, extraHeaders, tokens) {
    const region = (call) => {
        const value = option(call, 'vertex_region') ?? DEFAULT_REGION;
        if (!REGION.test(value))
            throw badRequest(`x-gateway-vertex-region "${value}" is not a Google Cloud region.`, 'x-gateway-vertex-region');
        return value;
    };
    const host = (call) => {
        if (call.target.baseUrl)
            return trimSlash(call.target.baseUrl);
        if (configuredBase)
            return configuredBase;
        const r = region(call);
        return r === 'global' ? 'https://aiplatform.googleapis.com' : `https://${r}-aiplatform.googleapis.com`;
    };
    const locationRoot = (call) => {
        const project = option(call, 'vertex_project_id') ?? serviceAccountOf(call)?.project_id;
        if (!project) {
            throw badRequest('Vertex AI needs a project: send x-gateway-vertex-project-id (or vertex_project_id in the target).', 'x-gateway-vertex-project-id');
        }
        if (!PROJECT.test(project))
            throw badRequest(`x-gateway-vertex-project-id "${project}" is not a project id.`, 'x-gateway-vertex-project-id');
        return `${host(call)}/v1/projects/${project}/locations/${region(call)}`;
    };
    return {
        host,
        locationRoot,
        modelUrl: (call, model, method) => `${locationRoot(call)}/publishers/google/models/${model}:${method}`,
        async headers(call) {
            const account = serviceAccountOf(call);
            if (account)
                return { ...extraHeaders, authorization: `Bearer ${await tokens.get(account, call.signal)}` };
            if (call.apiKey)
                return { ...extraHeaders, authorization: `Bearer ${call.apiKey}` };
            throw new GatewayError('invalid_api_key', 'No credential for vertex-ai: send a service account key in x-gateway-vertex-service-account-json, or an access token in x-gateway-api-key or Authorization: Bearer.', { provider });
        },
    };
}
function option(call, field) {
    const value = call.target.options?.[field];
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}
/** The target's service account key, parsed once per call. */
const parsedAccounts = new WeakMap();
function serviceAccountOf(call) {
    const known = parsedAccounts.get(call);
    if (known !== undefined)
        return known ?? undefined;
    const raw = call.target.options?.vertex_service_account_json;
    const account = raw === undefined || raw === null || raw === '' ? null : parseServiceAccount(raw);
    parsedAccounts.set(call, account);
    return account ?? undefined;
}
//# sourceMappingURL=endpoint.js.map