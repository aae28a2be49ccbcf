/**
 * Weighted random order without replacement: the first index is drawn with probability
 * weight / total, the next among the rest, and so on. Zero weights are never drawn.
 */
export function weightedOrder(weights, random = Math.random) {
    const left = [];
    let total = 0;
    for (let i = 0; i < weights.length; i++) {
        if (weights[i] > 0) {
            left.push(i);
            total += weights[i];
        }
    }
    const order = [];
    while (left.length > 0) {
        let draw = random() * total;
        let pick = left.length - 1;
        for (let j = 0; j < left.length; j++) {
            draw -= weights[left[j]];
            if (draw < 0) {
                pick = j;
                break;
            }
        }
        const index = left[pick];
        order.push(index);
        total -= weights[index];
        left.splice(pick, 1);
    }
    return order;
}
//# sourceMappingURL=weighted.js.map