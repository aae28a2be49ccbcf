const FORMATS = {
    completions: 'text',
    'messages.create': 'anthropic',
    'responses.create': 'responses',
};
/** The format of an operation's streamed answers. */
export function streamFormat(operation) {
    return FORMATS[operation] ?? 'chat';
}
//# sourceMappingURL=stream-format.js.map