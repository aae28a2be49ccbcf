// A 50 MiB file download (GET /v1/files/{id}/content) through the gateway: the upstream body is piped
// to the caller as it arrives (binary passthrough), never held whole.
import { OPENAI_HEADERS } from '../lib/requests.mjs';

export default {
  name: 'large-file-download',
  description: 'GET /v1/files/{id}/content of 50 MiB (streamed through)',
  concurrency: [1, 4],
  setup() {
    const { 'content-type': _json, ...headers } = OPENAI_HEADERS;
    return {
      request: { method: 'GET', path: '/v1/files/file-bench-50mb/content', headers },
      expect({ status, body }) {
        if (status !== 200) return `status ${status}: ${body.toString('utf8', 0, 300)}`;
        return body.length === 50 * 1024 * 1024 || `got ${body.length} bytes`;
      },
    };
  },
};
