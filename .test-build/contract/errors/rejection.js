import { ERROR_CATALOGUE } from './catalogue.js';
import { GatewayError } from './gateway-error.js';
const BY_STATUS = new Map();
for (const [code, entry] of Object.entries(ERROR_CATALOGUE)) {
    if (!BY_STATUS.has(entry.status))
        BY_STATUS.set(entry.status, code);
}
/**
 * A stage's refusal of a request (plugins: `ctx.reject`): the status it chose and the contract's
 * error body. Fields left out come from the catalogue entry of that status (403: permission_error
 * / insufficient_permissions...), or invalid_request_error / api_error and `rejected` for a status
 * the catalogue has not. It is a GatewayError that nothing retries or falls back on.
 */
export class Rejection extends GatewayError {
    constructor(status, detail = {}) {
        const valid = Number.isInteger(status) && status >= 400 && status <= 599;
        const own = valid ? status : 400;
        const entry = BY_STATUS.get(own);
        super(entry ?? 'missing_required_parameter', typeof detail.message === 'string' && detail.message ? detail.message : 'The request was refused.', {
            param: typeof detail.param === 'string' ? detail.param : null,
            retryable: false,
        });
        this.name = 'Rejection';
        // The status, type and code the stage chose (a catalogue error's are fixed by its code).
        const self = this;
        self.status = own;
        self.type = typeof detail.type === 'string' && detail.type ? detail.type : entry ? ERROR_CATALOGUE[entry].type : own >= 500 ? 'api_error' : 'invalid_request_error';
        self.code = typeof detail.code === 'string' && detail.code ? detail.code : (entry ?? 'rejected');
    }
    debugFields() {
        return {};
    }
}
//# sourceMappingURL=rejection.js.map