// Fixed-width text tables: each column is { title, value(row) -> string|number|null, align?, digits? }.

function cellText(value, digits) {
  if (value === null || value === undefined || (typeof value === 'number' && !Number.isFinite(value))) return '-';
  if (typeof value === 'number') return value.toFixed(digits ?? 0);
  return String(value);
}

/** Renders rows under a header line; numbers right-aligned, text left-aligned. */
export function formatTable(columns, rows) {
  const cells = rows.map((row) => columns.map((c) => cellText(c.value(row), c.digits)));
  const widths = columns.map((c, i) => Math.max(c.title.length, ...cells.map((r) => r[i].length)));
  const right = columns.map((c) => (c.align ? c.align === 'right' : c.digits !== undefined));
  const line = (parts) =>
    parts
      .map((p, i) => (right[i] ? p.padStart(widths[i]) : p.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  const out = [line(columns.map((c) => c.title)), line(widths.map((w) => '-'.repeat(w)))];
  for (const r of cells) out.push(line(r));
  return out.join('\n');
}
