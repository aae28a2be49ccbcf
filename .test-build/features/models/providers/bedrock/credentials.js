import { GatewayError } from '../../../../contract/errors/gateway-error.js';
/** Where Bedrock calls go when neither the target nor the request names a region. */
export const DEFAULT_REGION = 'us-east-1';
function option(call, field) {
    const value = call.target.options?.[field];
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}
/**
 * Bedrock's credentials: aws_access_key_id, aws_secret_access_key, aws_session_token and
 * aws_region from the routing target or the x-gateway-aws-* headers. The provider key
 * (x-gateway-api-key / Authorization) is not used. No credentials: 401 invalid_api_key.
 */
export function awsCredentials(call, settings) {
    const accessKeyId = option(call, 'aws_access_key_id');
    const secretAccessKey = option(call, 'aws_secret_access_key');
    if (!accessKeyId || !secretAccessKey) {
        throw new GatewayError('invalid_api_key', 'No AWS credentials for bedrock: send x-gateway-aws-access-key-id and x-gateway-aws-secret-access-key (or aws_access_key_id and aws_secret_access_key in the routing target).', { provider: 'bedrock' });
    }
    const region = option(call, 'aws_region') ?? (typeof settings.region === 'string' ? settings.region : DEFAULT_REGION);
    return { accessKeyId, secretAccessKey, sessionToken: option(call, 'aws_session_token'), region };
}
//# sourceMappingURL=credentials.js.map