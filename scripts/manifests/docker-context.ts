// What `docker build .` sends of this directory, by .dockerignore's rules (Docker's patternmatcher): each
// line a pattern relative to the context's root (a leading / is dropped), `*` and `?` within one path
// segment, `**` across any number of them, `!` re-admitting what an earlier line excluded; the last line
// that matches a path, or one of its parent directories, decides.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

type Rule = { exclude: boolean; pattern: RegExp };

function toRegExp(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*' && pattern[i + 1] === '*') {
      // `**/` matches zero or more directories; a trailing `**` anything below.
      re += pattern[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += pattern[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

export function dockerignoreRules(text: string): Rule[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const exclude = !l.startsWith('!');
      const p = path.posix.normalize((exclude ? l : l.slice(1)).trim().replace(/^\/+/, '')).replace(/\/$/, '');
      return { exclude, pattern: toRegExp(p) };
    });
}

/** Whether the build context of `contextDir` holds `relPath` (a path relative to it, with /). */
export function contextAdmits(contextDir: string, relPath: string): boolean {
  const file = path.join(contextDir, '.dockerignore');
  const rules = existsSync(file) ? dockerignoreRules(readFileSync(file, 'utf8')) : [];
  const segments = relPath.split('/');
  const candidates = segments.map((_, i) => segments.slice(0, i + 1).join('/'));
  let admitted = true;
  for (const rule of rules) if (candidates.some((c) => rule.pattern.test(c))) admitted = !rule.exclude;
  return admitted;
}
