import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

// Comments say what and why; which issue asked for a change, and when, belongs in commits and
// docs/benchmarks.md. This scans every comment, test name and string literal of the repository's own
// TypeScript and JavaScript, and the docs, for issue references, so adding one back fails here.
const root = path.resolve(__dirname, '..', '..');
const CODE_DIRS = ['services', 'packages', 'sdk', 'scripts', 'bench', 'test', 'examples'];
const SKIP_DIRS = new Set(['node_modules', 'dist', 'generated', 'coverage', '.git']);
const CODE = /\.(?:[cm]?[jt]s|tsx)$/;
/** The logs of what happened (the changelog, the benchmark log, the operations runs): they keep their entries. */
const LOGS = new Set(['CHANGELOG.md', 'docs/benchmarks.md']);

/** `issue 35`, `Issue #12`, `issues 2 and 24`; in the history of a work session, `round three`, `sixth session`. */
const ISSUE_REF = /\bissues? #?\d+|\bround (?:one|two|three|four)\b|\b(?:fourth|fifth|sixth|seventh|eighth) session\b/i;
/** In a comment, a bare `#12` too (not `owner/repo#12`, `&#60;`, `#000` or `#fff`); strings print `#1` as data. */
const BARE_REF = /(?<![\w/&#-])#[1-9]\d{0,3}\b/;
const SELF = path.relative(root, __filename);

function walk(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP_DIRS.has(entry.name)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, out);
    else if (CODE.test(entry.name)) out.push(full);
  }
  return out;
}

function codeFiles(): string[] {
  const top = readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isFile() && CODE.test(e.name))
    .map((e) => path.join(root, e.name));
  return [...top, ...CODE_DIRS.flatMap((d) => walk(path.join(root, d)))];
}

/** Every comment of a file (each once), and the text of every string literal and template part. */
function commentsAndStrings(file: string): { comments: string[]; strings: string[] } {
  const text = readFileSync(file, 'utf8');
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : file.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, kind);
  const seen = new Set<number>();
  const comments: string[] = [];
  const strings: string[] = [];
  const take = (ranges: ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) {
      if (seen.has(r.pos)) continue;
      seen.add(r.pos);
      comments.push(text.slice(r.pos, r.end));
    }
  };
  const visit = (node: ts.Node) => {
    // Every token's leading and trailing trivia, so a comment before a closing brace is read too.
    take(ts.getLeadingCommentRanges(text, node.getFullStart()));
    take(ts.getTrailingCommentRanges(text, node.getEnd()));
    if (ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node))
      strings.push(node.text);
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  return { comments, strings };
}

function offending(comments: string[], strings: string[] = []): string[] {
  return [
    ...comments.filter((t) => ISSUE_REF.test(t) || BARE_REF.test(t)),
    ...strings.filter((t) => ISSUE_REF.test(t)),
  ].map((t) => t.trim().slice(0, 160));
}

describe('no issue numbers or session history in the code', () => {
  it('finds an issue reference where one is written (the scan works)', () => {
    const comments = ['// Resync now (issue 20, part 5)', '/** see #12 */', '// the sixth session', '// round three'];
    expect(offending(comments, ["it('holds removals (Issue 34)'", 'log: fixed in issue #7'])).toHaveLength(6);
    const fine = ['// discord-api-docs#5840', '// outline: #000', '// RFC 6749 §5.2', "// the first session's rows"];
    expect(offending(fine, ['#1: link.disabled delivered', '&#60;b&#62;'])).toEqual([]);
  });

  it('has none in any comment, test name, log message or other string of the TypeScript and JavaScript sources', () => {
    const files = codeFiles();
    expect(files.length).toBeGreaterThan(500);
    const found = files
      .filter((file) => path.relative(root, file) !== SELF)
      .flatMap((file) => {
        const { comments, strings } = commentsAndStrings(file);
        return offending(comments, strings).map((t) => `${path.relative(root, file)}: ${t}`);
      });
    expect(found).toEqual([]);
  }, 300_000);

  it('has none in the docs and READMEs (the changelog and the logs in docs/ keep theirs)', () => {
    const docs = [
      'README.md',
      ...readdirSync(path.join(root, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
      ...CODE_DIRS.flatMap((d) => readmes(path.join(root, d))),
    ].filter((f) => !LOGS.has(f));
    const found = docs.flatMap((f) =>
      readFileSync(path.join(root, f), 'utf8')
        .split('\n')
        .map((line, i) => ({ line, at: `${f}:${i + 1}` }))
        .filter(({ line }) => /\bissues? #?\d+/i.test(line))
        .map(({ line, at }) => `${at}: ${line.trim().slice(0, 160)}`),
    );
    expect(found).toEqual([]);
  });
});

/** README.md files under `dir`, relative to the root. */
function readmes(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP_DIRS.has(entry.name)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) readmes(full, out);
    else if (entry.name === 'README.md') out.push(path.relative(root, full));
  }
  return out;
}
