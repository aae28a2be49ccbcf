import { modelList } from '../gemini/model-list.js';
/** The most models the Gemini API returns on one page. */
const PAGE_SIZE = 1000;
export function googleModelsAdapter(endpoint) {
    return {
        async request(call) {
            return { method: 'GET', url: `${endpoint.apiRoot(call)}/models?pageSize=${PAGE_SIZE}`, headers: await endpoint.headers(call), body: null };
        },
        response: (body) => modelList(body?.models, 'google', typeof body?.nextPageToken === 'string' && body.nextPageToken !== ''),
    };
}
//# sourceMappingURL=models.js.map