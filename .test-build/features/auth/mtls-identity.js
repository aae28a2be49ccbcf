import { ALL_SCOPES } from './scopes.js';
function first(value) {
    const v = Array.isArray(value) ? value[0] : value;
    return v?.trim() || undefined;
}
/** The first `email:` entry of a certificate's subjectAltName. */
export function emailFromAltNames(altNames) {
    if (!altNames)
        return undefined;
    for (const part of altNames.split(/,\s*/)) {
        if (part.startsWith('email:'))
            return part.slice('email:'.length).trim() || undefined;
    }
    return undefined;
}
/** CN as name, email SAN as email, OU as team; the id is subject and issuer together. */
export function identityFromCertificate(cert) {
    const cn = first(cert.subject?.CN);
    const subject = Object.entries(cert.subject ?? {})
        .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('+') : v}`)
        .join(',');
    const issuer = Object.entries(cert.issuer ?? {})
        .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('+') : v}`)
        .join(',');
    return {
        kind: 'mtls',
        id: `${subject}|${issuer}`,
        user: cn,
        name: cn,
        email: emailFromAltNames(cert.subjectaltname),
        team: first(cert.subject?.OU),
        scopes: [...ALL_SCOPES],
    };
}
/**
 * The verified client certificate of the request's TLS connection: present and signed by
 * auth.ca (the TLS layer checked the chain; `authorized` says it did), else undefined.
 */
export function verifiedPeerCertificate(req) {
    const socket = req.socket;
    if (!socket.encrypted || !socket.authorized)
        return undefined;
    const cert = socket.getPeerCertificate();
    if (!cert || Object.keys(cert).length === 0)
        return undefined;
    return cert;
}
//# sourceMappingURL=mtls-identity.js.map