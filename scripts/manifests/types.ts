export type Problem = { file: string; where: string; message: string };
export type Manifest = { file: string; index: number; doc: Record<string, unknown> };

export const at = (m: Manifest) => {
  const meta = (m.doc.metadata ?? {}) as { name?: string };
  return `${typeof m.doc.kind === 'string' ? m.doc.kind : '?'}/${meta.name ?? `#${m.index}`}`;
};

/** Safe deep read: get(obj, 'spec', 'template', 'spec') → unknown. */
export function get(value: unknown, ...path: (string | number)[]): unknown {
  let cur = value;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[key];
  }
  return cur;
}

export const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const asRecord = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
