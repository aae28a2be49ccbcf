export function defineStage(stage) {
    return stage;
}
export function slotsOf(slots, config) {
    if (!slots)
        return [];
    return typeof slots === 'function' ? slots(config) : slots;
}
//# sourceMappingURL=stage.js.map