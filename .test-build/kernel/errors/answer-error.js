export function isAnswerError(value) {
    const e = value;
    return !!e && typeof e === 'object' && typeof e.status === 'number' && typeof e.answerBody === 'function';
}
//# sourceMappingURL=answer-error.js.map