// Readers of Anthropic Messages and Responses answers, for the scenarios that check them.

/** The text of an Anthropic Messages SSE body (text deltas joined), and whether it ended with message_stop. */
export function readAnthropicSse(text) {
  let content = '';
  let done = false;
  for (const line of text.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const event = JSON.parse(line.slice(5));
    if (event.type === 'content_block_delta' && event.delta?.type === 'text_delta') content += event.delta.text;
    if (event.type === 'message_stop') done = true;
  }
  return { content, done };
}

/** The output text of a Responses SSE body, and the final response when it completed. */
export function readResponsesSse(text) {
  let content = '';
  let final;
  for (const line of text.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const event = JSON.parse(line.slice(5));
    if (event.type === 'response.output_text.delta') content += event.delta;
    if (event.type === 'response.completed') final = event.response;
  }
  return { content, final };
}

/** The output_text of a whole response. */
export function responseText(response) {
  return (response?.output ?? [])
    .filter((item) => item.type === 'message')
    .flatMap((item) => item.content.map((c) => c.text))
    .join('');
}
