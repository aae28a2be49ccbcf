/** Bedrock runtime paths: the model id (or ARN) is one path segment, percent-encoded. */
export function modelPath(model: unknown, action: 'converse' | 'converse-stream' | 'invoke'): string {
  return `/model/${encodeURIComponent(String(model ?? ''))}/${action}`;
}

/** The public endpoint of a region. */
export function regionalBaseUrl(region: string): string {
  return `https://bedrock-runtime.${region}.amazonaws.com`;
}
