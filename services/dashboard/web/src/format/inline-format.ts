/**
 * The small inline syntax of `display` fields (spec 2.8): `**bold**`, `*italic*`, `` `code` ``,
 * `[text](url)`, bare http(s) URLs, line breaks. The text comes from a plugin, so it is parsed into a
 * token tree that a component renders as React elements (text stays text) — never into HTML. Only
 * http: and https: targets become links; anything else stays plain text. React-free so it can be unit
 * tested under jest.
 */

export type InlineNode =
  | { kind: 'text'; text: string }
  | { kind: 'break' }
  | { kind: 'bold'; children: InlineNode[] }
  | { kind: 'italic'; children: InlineNode[] }
  | { kind: 'code'; text: string }
  | { kind: 'link'; href: string; children: InlineNode[] };

/** Characters that end a bare URL, and trailing punctuation that belongs to the sentence, not the URL. */
const URL_STOP = /[\s<>"'`]/;
const URL_TRAILING = /[.,;:!?*_]+$/;
const BARE_URL_START = /^https?:\/\//i;

/**
 * The normalised URL when `raw` is an absolute http: or https: URL with a host, else null. Rejects
 * `javascript:`, `data:`, relative and protocol-relative targets, and anything with whitespace or
 * control characters (which browsers would silently strip).
 */
export function safeHref(raw: string): string | null {
  const value = raw.trim();
  if (value === '' || /[\p{Cc} ]/u.test(value)) return null; // controls (C0, DEL, C1) or a space
  if (!/^https?:\/\//i.test(value)) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') return null;
  return url.href;
}

function isSpace(ch: string | undefined): boolean {
  return ch === undefined || /\s/.test(ch);
}

/** Index of the `*` that closes an italic opened at `from - 1`: a single star (not part of `**`). */
function findItalicClose(src: string, from: number): number {
  for (let i = from; i < src.length; i++) {
    if (src[i] !== '*') continue;
    if (src[i + 1] === '*') {
      i++; // skip a `**` pair as a whole
      continue;
    }
    if (src[i - 1] === '*') continue;
    return i;
  }
  return -1;
}

/** Index of the `)` that closes the link target opened at `from - 1`, allowing balanced parentheses inside. */
function findTargetClose(src: string, from: number): number {
  let depth = 0;
  for (let i = from; i < src.length; i++) {
    const ch = src[i];
    if (ch === '\n' || ch === '\r') return -1;
    if (ch === '(') depth++;
    else if (ch === ')') {
      if (depth === 0) return i;
      depth--;
    }
  }
  return -1;
}

/** Length of the bare URL starting at `start`, with trailing punctuation and unbalanced `)` left out. */
function bareUrlLength(src: string, start: number): number {
  let end = start;
  while (end < src.length && !URL_STOP.test(src[end] as string)) end++;
  let url = src.slice(start, end).replace(URL_TRAILING, '');
  // "(see https://x.example/a)" — the closing parenthesis is the sentence's unless the URL opened one.
  while (url.endsWith(')') && (url.match(/\(/g)?.length ?? 0) < (url.match(/\)/g)?.length ?? 0)) {
    url = url.slice(0, -1).replace(URL_TRAILING, '');
  }
  return url.length;
}

class Builder {
  readonly nodes: InlineNode[] = [];
  private text = '';

  add(text: string): void {
    this.text += text;
  }

  push(node: InlineNode): void {
    this.flush();
    this.nodes.push(node);
  }

  finish(): InlineNode[] {
    this.flush();
    return this.nodes;
  }

  private flush(): void {
    if (this.text !== '') this.nodes.push({ kind: 'text', text: this.text });
    this.text = '';
  }
}

type Context = { links: boolean };

function parse(src: string, ctx: Context): InlineNode[] {
  const out = new Builder();
  let i = 0;
  while (i < src.length) {
    const ch = src[i] as string;

    if (ch === '\r' || ch === '\n') {
      out.push({ kind: 'break' });
      i += ch === '\r' && src[i + 1] === '\n' ? 2 : 1;
      continue;
    }

    if (ch === '`') {
      const close = src.indexOf('`', i + 1);
      if (close > i + 1) {
        out.push({ kind: 'code', text: src.slice(i + 1, close) });
        i = close + 1;
        continue;
      }
    }

    if (ch === '*' && src[i + 1] === '*') {
      const close = src.indexOf('**', i + 2);
      if (close > i + 2 && !isSpace(src[i + 2]) && !isSpace(src[close - 1])) {
        out.push({ kind: 'bold', children: parse(src.slice(i + 2, close), ctx) });
        i = close + 2;
        continue;
      }
      out.add('**');
      i += 2;
      continue;
    }

    if (ch === '*') {
      const close = findItalicClose(src, i + 1);
      if (close > i + 1 && !isSpace(src[i + 1]) && !isSpace(src[close - 1])) {
        out.push({ kind: 'italic', children: parse(src.slice(i + 1, close), ctx) });
        i = close + 1;
        continue;
      }
    }

    if (ch === '[' && ctx.links) {
      const labelEnd = src.indexOf(']', i + 1);
      if (labelEnd > i + 1 && src[labelEnd + 1] === '(') {
        const targetEnd = findTargetClose(src, labelEnd + 2);
        if (targetEnd !== -1) {
          // Link text is formatted but holds no further links; an unsafe target leaves just the text.
          const children = parse(src.slice(i + 1, labelEnd), { links: false });
          const href = safeHref(src.slice(labelEnd + 2, targetEnd));
          if (href) out.push({ kind: 'link', href, children });
          else {
            for (const child of children) {
              if (child.kind === 'text') out.add(child.text);
              else out.push(child);
            }
          }
          i = targetEnd + 1;
          continue;
        }
      }
    }

    if (
      (ch === 'h' || ch === 'H') &&
      ctx.links &&
      BARE_URL_START.test(src.slice(i, i + 8)) &&
      (i === 0 || !/[\p{L}\p{N}_]/u.test(src[i - 1] as string))
    ) {
      const length = bareUrlLength(src, i);
      const raw = src.slice(i, i + length);
      const href = safeHref(raw);
      if (href) {
        out.push({ kind: 'link', href, children: [{ kind: 'text', text: raw }] });
        i += length;
        continue;
      }
    }

    out.add(ch);
    i++;
  }
  return out.finish();
}

/** Parses a display value into a token tree (never throws; unmatched markers stay as literal text). */
export function parseInlineFormat(src: string): InlineNode[] {
  return parse(src, { links: true });
}

/** The plain text of a token tree (what a screen reader would read), for tests and titles. */
export function inlineText(nodes: readonly InlineNode[]): string {
  return nodes
    .map((n) => {
      switch (n.kind) {
        case 'text':
        case 'code':
          return n.text;
        case 'break':
          return '\n';
        default:
          return inlineText(n.children);
      }
    })
    .join('');
}
