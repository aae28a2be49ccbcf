import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Identity } from '../../kernel/engine/context.js';
import type { AnswerSteps } from './dispatch/answer-steps.js';

/** Who a session belongs to: the credential that opened it (its kind and id); every request is checked against it. */
export const ownerOf = (identity: Identity): string => `${identity.kind}:${identity.id}`;

/** Whose gateway account this is, in words a person recognises (the consent page of a per-user connection names it). */
export function accountLabel(identity: Identity): string {
  const who = identity.email ?? identity.user ?? identity.name;
  return who ? `${who} (${identity.kind} ${identity.id})` : `${identity.kind} ${identity.id}`;
}

/**
 * The identity of the HTTP request that carried a JSON-RPC message (every request is
 * authenticated), as the SDK passes it on, with the answer steps of that HTTP request (the
 * dispatch applies them to the answers of its requests).
 */
export function authInfoFor(identity: Identity, steps?: AnswerSteps): AuthInfo {
  return { token: '', clientId: ownerOf(identity), scopes: identity.scopes ?? [], extra: steps?.length ? { identity, answerSteps: steps } : { identity } };
}

/** The answer steps of the HTTP request a message came in (none when its stages added none). */
export function answerStepsOf(authInfo: AuthInfo | undefined): AnswerSteps | undefined {
  return authInfo?.extra?.answerSteps as AnswerSteps | undefined;
}
