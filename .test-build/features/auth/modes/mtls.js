import { schemaDocument } from '../../../kernel/config/schema-validator.js';
import { unauthenticated } from '../challenge.js';
import { identityFromCertificate, verifiedPeerCertificate } from '../mtls-identity.js';
import { publicBaseUrl } from '../public-url.js';
import { defineAuthMode } from './auth-mode.js';
/** The client certificate the TLS server verified against auth.ca. */
export default defineAuthMode({
    name: 'mtls',
    description: 'Client certificates signed by auth.ca (the TLS server demands them).',
    schema: schemaDocument('auth-modes/mtls.schema.json'),
    create(_settings, { config }) {
        return {
            async authenticate(ctx) {
                const cert = verifiedPeerCertificate(ctx.req);
                if (!cert)
                    throw unauthenticated('A client certificate signed by the gateway CA (auth.ca) is required.', publicBaseUrl(ctx.req, config));
                return identityFromCertificate(cert);
            },
        };
    },
});
//# sourceMappingURL=mtls.js.map