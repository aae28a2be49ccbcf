import { modelList } from '../gemini/model-list.js';
const PAGE_SIZE = 1000;
export function vertexModelsAdapter(endpoint) {
    return {
        async request(call) {
            return {
                method: 'GET',
                url: `${endpoint.host(call)}/v1beta1/publishers/google/models?pageSize=${PAGE_SIZE}`,
                headers: await endpoint.headers(call),
                body: null,
            };
        },
        response: (body) => modelList(body?.publisherModels, 'google', typeof body?.nextPageToken === 'string' && body.nextPageToken !== ''),
    };
}
//# sourceMappingURL=models.js.map