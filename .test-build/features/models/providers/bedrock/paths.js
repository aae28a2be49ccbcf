/** Bedrock runtime paths: the model id (or ARN) is one path segment, percent-encoded. */
export function modelPath(model, action) {
    return `/model/${encodeURIComponent(String(model ?? ''))}/${action}`;
}
/** The public Bedrock runtime hosts: bedrock-runtime.{region}.amazonaws.com (and .com.cn). */
export const BEDROCK_HOSTS = /^bedrock-runtime(?:-fips)?\.[a-z]{2}(?:-[a-z]+){1,2}-\d{1,2}\.amazonaws\.com(?:\.cn)?$/;
/** The public endpoint of a region (the region checked by the caller-value rules first), built with the URL API. */
export function regionalBaseUrl(region) {
    const url = new URL('https://bedrock-runtime.amazonaws.com');
    url.hostname = `bedrock-runtime.${region}.amazonaws.com${region.startsWith('cn-') ? '.cn' : ''}`;
    return url.origin;
}
//# sourceMappingURL=paths.js.map