/**
 * What differs between the two hosts of the Gemini format (the Gemini API and Vertex AI):
 * where a model's methods live and how a request is authenticated. Everything else (bodies,
 * answers, streams, errors) is shared in this folder.
 */
import { badRequest } from '../../../../contract/errors/gateway-error.js';
/** The model named by the request, without a resource prefix ("models/", "publishers/google/models/"). */
export function modelName(body) {
    const model = body?.model;
    if (typeof model !== 'string' || model.trim() === '')
        throw badRequest('model is required.', 'model');
    return model.trim().replace(/^(publishers\/[^/]+\/)?models\//, '');
}
/** The request's URL and headers for one model method. */
export async function locate(endpoint, call, method) {
    const model = encodeURIComponent(modelName(call.body));
    const url = await endpoint.modelUrl(call, model, method);
    return { url, headers: await endpoint.headers(call) };
}
//# sourceMappingURL=gemini-endpoint.js.map