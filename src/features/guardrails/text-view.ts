/** A span of the joined text to mask, and what it becomes. */
export interface Redaction {
  start: number;
  end: number;
  mask: string;
}

/** One piece of checked text and how to write it back once masked. */
export interface TextPiece {
  text: string;
  /** Pieces of one group are joined directly (stream deltas of one choice); groups are separated by a newline. */
  group: number;
  write(text: string): void;
}

/**
 * The text guardrails check, made of pieces (message contents, choice texts, stream deltas)
 * joined into one string. Masks found in the joined text are written back piece by piece: a
 * match that spans several stream deltas becomes one mask in the delta where it starts.
 */
export class TextView {
  /** The joined text (after any masking so far). */
  text: string;
  /** Whether redaction rewrote any piece. */
  changed = false;
  private readonly order: TextPiece[];
  private offsets: number[] = [];

  constructor(pieces: TextPiece[]) {
    this.order = pieces
      .map((piece, seq) => ({ piece, seq }))
      .sort((a, b) => a.piece.group - b.piece.group || a.seq - b.seq)
      .map((x) => x.piece);
    this.text = this.join();
  }

  /** Joins the pieces and notes where each starts. */
  private join(): string {
    this.offsets = [];
    let text = '';
    let group: number | undefined;
    for (const piece of this.order) {
      if (group !== undefined && piece.group !== group) text += '\n';
      group = piece.group;
      this.offsets.push(text.length);
      text += piece.text;
    }
    return text;
  }

  get empty(): boolean {
    return this.order.length === 0;
  }

  /** Applies masks (overlapping ones merged) and writes changed pieces back. */
  redact(redactions: Redaction[]): void {
    const merged = mergeRedactions(redactions);
    if (!merged.length) return;
    const emitted = new Set<Redaction>();
    this.order.forEach((piece, i) => {
      const from = this.offsets[i]!;
      const to = from + piece.text.length;
      let out = '';
      let pos = 0;
      let changed = false;
      for (const r of merged) {
        if (r.end <= from || r.start >= to) continue;
        const s = Math.max(r.start, from) - from;
        const e = Math.min(r.end, to) - from;
        out += piece.text.slice(pos, s);
        if (!emitted.has(r)) {
          out += r.mask;
          emitted.add(r);
        }
        pos = e;
        changed = true;
      }
      if (!changed) return;
      out += piece.text.slice(pos);
      piece.text = out;
      piece.write(out);
      this.changed = true;
    });
    this.text = this.join();
  }
}

export function mergeRedactions(redactions: Redaction[]): Redaction[] {
  const sorted = redactions.filter((r) => r.end > r.start).sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Redaction[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r.start < last.end) {
      last.end = Math.max(last.end, r.end);
      continue;
    }
    out.push({ ...r });
  }
  return out;
}
