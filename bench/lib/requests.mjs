// Request bodies shared by scenarios.

/** A typical small chat request (system + user message). */
export function openaiChatBody({ stream = false, model = 'gpt-4o-mini' } = {}) {
  return {
    model,
    messages: [
      { role: 'system', content: 'You are a concise assistant. Answer in one sentence.' },
      { role: 'user', content: 'In one sentence: what does an AI gateway do for an application that calls several model providers?' },
    ],
    temperature: 0.2,
    max_tokens: 128,
    ...(stream ? { stream: true } : {}),
  };
}

/** Headers that route a request to the openai provider with a key. */
export const OPENAI_HEADERS = {
  'content-type': 'application/json',
  authorization: 'Bearer sk-bench-0123456789abcdefghijklmnop',
  'x-gateway-provider': 'openai',
};
