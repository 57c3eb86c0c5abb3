/** Human output: nested objects as indented `key: value` lines. `--json` prints the value as JSON instead. */
export function formatHuman(value: unknown, indent = ''): string {
  if (value === null || value === undefined) return `${indent}-`;
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a JSON value: only primitives reach here
  if (typeof value !== 'object') return `${indent}${String(value)}`;
  const lines: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      lines.push(`${indent}${k}:`, formatHuman(v, indent + '  '));
    } else {
      lines.push(`${indent}${k}: ${Array.isArray(v) ? v.join(', ') : v === null ? '-' : String(v)}`);
    }
  }
  return lines.join('\n');
}
