import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
let aws4;
/** Signs a Bedrock runtime request with AWS Signature Version 4 (service "bedrock"). */
export function signedRequest(method, url, headers, body, credentials) {
    const target = new URL(url);
    const request = {
        host: target.host,
        path: `${target.pathname}${target.search}`,
        method,
        service: 'bedrock',
        region: credentials.region,
        headers: { ...headers, host: target.host },
        body,
    };
    // aws4 is loaded when a gateway first signs a Bedrock request, not at start-up.
    aws4 ??= require('aws4');
    aws4.sign(request, {
        accessKeyId: credentials.accessKeyId,
        secretAccessKey: credentials.secretAccessKey,
        sessionToken: credentials.sessionToken,
    });
    const signed = {};
    for (const [name, value] of Object.entries(request.headers))
        signed[name.toLowerCase()] = String(value);
    return { method, url, headers: signed, body };
}
//# sourceMappingURL=signing.js.map