/**
 * Weighted random order without replacement: the first index is drawn with probability
 * weight / total, the next among the rest, and so on. Zero weights are never drawn.
 */
export function weightedOrder(weights: readonly number[], random: () => number = Math.random): number[] {
  const left: number[] = [];
  let total = 0;
  for (let i = 0; i < weights.length; i++) {
    if (weights[i]! > 0) {
      left.push(i);
      total += weights[i]!;
    }
  }
  const order: number[] = [];
  while (left.length > 0) {
    let draw = random() * total;
    let pick = left.length - 1;
    for (let j = 0; j < left.length; j++) {
      draw -= weights[left[j]!]!;
      if (draw < 0) {
        pick = j;
        break;
      }
    }
    const index = left[pick]!;
    order.push(index);
    total -= weights[index]!;
    left.splice(pick, 1);
  }
  return order;
}
