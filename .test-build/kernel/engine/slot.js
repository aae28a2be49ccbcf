let nextIndex = 0;
const byName = new Map();
/**
 * Defines a slot. Define each once, at module level, beside the code that provides it. The
 * same name defined twice is a programming error (two features would share one place).
 */
export function defineSlot(name, label = `a ${name}`) {
    if (byName.has(name))
        throw new Error(`a context slot named ${name} is already defined`);
    const slot = Object.freeze({ name, label, index: nextIndex++ });
    byName.set(name, slot);
    return slot;
}
/** How many slots exist (the size of a context's slot array). */
export function slotCount() {
    return nextIndex;
}
//# sourceMappingURL=slot.js.map