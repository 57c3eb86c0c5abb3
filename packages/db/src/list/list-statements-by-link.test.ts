import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

// Lists ready to shard: every statement the db package sends that touches a list table
// carries `link_id` in its WHERE or join, so `link_id` can be the distribution column (Citus) or the
// partition key (declarative partitioning) without changing a statement. The statements are read from
// their text: every SQL string and template in packages/db/src's concern folders (the repositories own
// every statement, docs/architecture.md), an interpolation read as an opaque value.

/** The list tables: one list (or its staging, or its applied record) per link. */
const LIST_TABLES = ['link_user', 'list_change', 'upload_staged', 'applied_member'];
/** packages/db/src: every concern folder, this one's parent. */
const SRC = path.join(__dirname, '..');

type Statement = { file: string; line: number; text: string };

/** Every string or template in the file that reads as SQL and names a list table. */
function statementsOf(file: string): Statement[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: Statement[] = [];
  const visit = (node: ts.Node): void => {
    let text: string | undefined;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) text = node.text;
    else if (ts.isTemplateExpression(node))
      text = [node.head.text, ...node.templateSpans.map((s) => ` __value__ ${s.literal.text}`)].join('');
    if (
      text !== undefined &&
      /\b(SELECT|INSERT|UPDATE|DELETE|COPY)\b/i.test(text) &&
      LIST_TABLES.some((t) => new RegExp(`\\b${t}\\b`).test(text))
    ) {
      found.push({
        file: path.relative(SRC, file),
        line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1,
        text: text.replace(/--[^\n]*/g, ' '),
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'generated' ? [] : sourceFiles(full);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** The text of the innermost parenthesised group around `at` (the whole statement at top level). */
function scopeAround(text: string, at: number): string {
  let depth = 0;
  let start = 0;
  for (let i = at - 1; i >= 0; i--) {
    if (text[i] === ')') depth++;
    else if (text[i] === '(') {
      if (depth === 0) {
        start = i + 1;
        break;
      }
      depth--;
    }
  }
  depth = 0;
  let end = text.length;
  for (let i = at; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')') {
      if (depth === 0) {
        end = i;
        break;
      }
      depth--;
    }
  }
  return text.slice(start, end);
}

/** The scope without its subqueries (a nested `(SELECT …)`): their filters are theirs, not this scope's. */
function withoutSubqueries(scope: string): string {
  let out = scope;
  for (;;) {
    const next = out.replace(/\(\s*(SELECT|WITH)\b[^()]*\)/gi, ' __subquery__ ');
    if (next === out) return out;
    out = next;
  }
}

const KEYWORDS = new Set([
  'where',
  'on',
  'using',
  'join',
  'left',
  'right',
  'inner',
  'full',
  'cross',
  'set',
  'group',
  'order',
  'limit',
  'returning',
  'union',
  'as',
  'natural',
  'tablesample',
  'for',
  'except',
  'intersect',
  'window',
  'having',
  'offset',
]);

/**
 * Why a statement does not filter one of its list tables by link, or null. Each reference to a list table
 * (FROM, JOIN, UPDATE, DELETE FROM, COPY, INSERT INTO) needs, in its own query level, a comparison of its
 * `link_id` (`x.link_id = …`, `… = x.link_id`, `link_id = ANY(…)`, `link_id IN (…)`, or a join `USING
 * (link_id, …)`); an INSERT needs `link_id` among its columns.
 */
export function unfilteredReference(text: string): string | null {
  for (const table of LIST_TABLES) {
    const ref = new RegExp(
      `\\b(FROM|JOIN|UPDATE|INTO|COPY)\\s+${table}\\b(?:\\s+(?:AS\\s+)?([a-z_][a-z0-9_]*))?`,
      'gi',
    );
    for (const m of text.matchAll(ref)) {
      const keyword = m[1]!.toUpperCase();
      const alias = m[2] && !KEYWORDS.has(m[2].toLowerCase()) ? m[2] : undefined;
      const scope = scopeAround(text, m.index);
      if (keyword === 'INTO' || keyword === 'COPY') {
        const afterTable = m.index + m[0].search(new RegExp(`\\b${table}\\b`)) + table.length;
        const columns = /^\s*(?:AS\s+\w+\s*)?\(([^)]*)\)/i.exec(text.slice(afterTable));
        if (!columns || !/\blink_id\b/.test(columns[1]!))
          return `${keyword} ${table} without link_id among its columns`;
        continue;
      }
      const level = withoutSubqueries(scope);
      const q = alias ?? table;
      const compared = (name: string) =>
        new RegExp(`${name}\\s*(=|IN\\s*\\(|<>|IS NOT DISTINCT FROM)`, 'i').test(level) ||
        new RegExp(`(=|IS NOT DISTINCT FROM)\\s*${name}\\b`, 'i').test(level);
      const qualified = compared(`\\b${q}\\.link_id\\b`);
      // Unqualified `link_id` only counts where this is the level's one list table (no other reference to tell it from).
      const tablesHere = LIST_TABLES.reduce(
        (n, t) => n + (level.match(new RegExp(`\\b(FROM|JOIN|UPDATE)\\s+${t}\\b`, 'gi'))?.length ?? 0),
        0,
      );
      const bare = tablesHere === 1 && compared(`(?<![.\\w])link_id\\b`);
      const using = /\bUSING\s*\(\s*[^)]*\blink_id\b/i.test(level) && keyword === 'JOIN';
      if (!qualified && !bare && !using)
        return `${keyword} ${table}${alias ? ` ${alias}` : ''} without a link_id filter in its query level`;
    }
  }
  return null;
}

describe('list statements carry link_id (lists ready to shard by link)', () => {
  const statements = sourceFiles(SRC).flatMap(statementsOf);

  it('finds the statements on the list tables (the reader is not blind)', () => {
    expect(statements.length).toBeGreaterThan(50);
    for (const table of LIST_TABLES)
      expect(statements.some((s) => new RegExp(`\\b${table}\\b`).test(s.text))).toBe(true);
  });

  it('every statement on link_user, list_change, upload_staged and applied_member filters by link', () => {
    const offenders = statements.flatMap((s) => {
      const why = unfilteredReference(s.text);
      return why ? [`${s.file}:${s.line}: ${why}\n    ${s.text.replace(/\s+/g, ' ').trim().slice(0, 300)}`] : [];
    });
    expect(offenders).toEqual([]);
  });

  it('tells a statement that filters by link from one that does not', () => {
    const ok = [
      'SELECT user_id FROM link_user WHERE link_id = $1 AND user_id > $2',
      'DELETE FROM list_change WHERE link_id = ANY($1::bigint[]) AND seq <= $2',
      'UPDATE applied_member a SET outcome = $3 FROM link_user l WHERE a.link_id = $1 AND l.link_id = a.link_id AND l.user_id = a.user_id',
      'INSERT INTO upload_staged (session_id, link_id, user_id) SELECT $1, $2, u FROM unnest($3::bigint[]) u',
      'SELECT count(*) FROM applied_member a JOIN link_user l USING (link_id, user_id) WHERE a.link_id = $1',
    ];
    const bad = [
      'SELECT count(*) FROM link_user',
      "DELETE FROM list_change WHERE created_at < now() - interval '1 day'",
      'UPDATE applied_member a SET outcome = $2 WHERE a.user_id = $1',
      'SELECT a.user_id FROM applied_member a WHERE a.link_id = $1 AND a.user_id NOT IN (SELECT user_id FROM link_user)',
      'INSERT INTO link_user (user_id) VALUES ($1)',
      'SELECT l.user_id FROM link_user l JOIN applied_member a ON a.user_id = l.user_id WHERE l.link_id = $1',
    ];
    expect(ok.map(unfilteredReference)).toEqual(ok.map(() => null));
    for (const b of bad) expect([b, unfilteredReference(b)]).toEqual([b, expect.any(String)]);
  });
});
