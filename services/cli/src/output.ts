/** Human output: nested objects as indented `key: value` lines. `--json` prints the value as JSON instead. */
export function formatHuman(value: unknown, indent = ''): string {
  if (value === null || value === undefined) return `${indent}-`;
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a JSON value: only primitives reach here
  if (typeof value !== 'object') return `${indent}${String(value)}`;
  const lines: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      lines.push(`${indent}${k}:`, formatHuman(v, indent + '  '));
    } else if (Array.isArray(v) && v.some((x) => x !== null && typeof x === 'object')) {
      // A list of records (a member's history, an audit page, a strip's sample): one item per line, its
      // flat fields side by side, anything nested below it.
      lines.push(`${indent}${k}:`);
      for (const item of v as unknown[]) lines.push(listItem(item, `${indent}  `));
    } else {
      lines.push(`${indent}${k}: ${Array.isArray(v) ? v.join(', ') : v === null ? '-' : String(v)}`);
    }
  }
  return lines.join('\n');
}

function listItem(item: unknown, indent: string): string {
  if (item === null || typeof item !== 'object') return formatHuman(item, `${indent}- `);
  const entries = Object.entries(item);
  const flat = entries.filter(([, v]) => v === null || typeof v !== 'object' || Array.isArray(v));
  const nested = entries.filter(([, v]) => v !== null && typeof v === 'object' && !Array.isArray(v));
  const head = `${indent}- ${flat.map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : v === null ? '-' : String(v)}`).join(', ')}`;
  return [head, ...nested.map(([k, v]) => `${indent}  ${k}:\n${formatHuman(v, `${indent}    `)}`)].join('\n');
}
