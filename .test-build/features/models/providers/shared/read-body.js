/** Reads a whole (bounded) upstream body into one Buffer; past `limit`, the rest is discarded. */
export function readBody(body, limit = Number.POSITIVE_INFINITY) {
    return new Promise((resolve, reject) => {
        const chunks = [];
        let size = 0;
        body.on('data', (chunk) => {
            if (size >= limit)
                return;
            chunks.push(chunk);
            size += chunk.length;
        });
        body.once('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
        body.once('error', reject);
    });
}
//# sourceMappingURL=read-body.js.map