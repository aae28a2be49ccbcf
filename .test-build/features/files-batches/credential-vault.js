import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';
/**
 * Keeps the request headers a gateway-run batch needs to call the provider (its key, routing
 * config, provider settings) so that the batch can resume after a restart. With a secret
 * (GATEWAY_SECRET_KEY, else auth.adminToken) they are stored encrypted (AES-256-GCM, key
 * derived with scrypt); without one they live only in this process's memory, and a batch
 * found unfinished at start-up waits until its owner calls the batches or files API again
 * with the same key.
 */
export class CredentialVault {
    key;
    constructor(secret) {
        if (secret)
            this.key = scryptSync(secret, 'ai-gateway/batch-credentials/v1', 32);
    }
    get persistent() {
        return this.key !== undefined;
    }
    seal(headers) {
        if (!this.key)
            return null;
        const iv = randomBytes(12);
        const cipher = createCipheriv('aes-256-gcm', this.key, iv);
        const data = Buffer.concat([cipher.update(JSON.stringify(headers), 'utf8'), cipher.final()]);
        return `v1:${Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64')}`;
    }
    /** The headers, or undefined when there is no secret or it changed since they were sealed. */
    open(sealed) {
        if (!this.key || !sealed?.startsWith('v1:'))
            return undefined;
        try {
            const raw = Buffer.from(sealed.slice(3), 'base64');
            const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
            decipher.setAuthTag(raw.subarray(12, 28));
            const text = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
            return JSON.parse(text);
        }
        catch {
            return undefined;
        }
    }
}
//# sourceMappingURL=credential-vault.js.map