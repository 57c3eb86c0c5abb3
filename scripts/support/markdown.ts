// What a Markdown file offers as link targets: the anchors GitHub gives its headings. Shared by the manifests
// validator (every alert's runbook_url must land on a heading) and the docs' link test.

/** The text outside fenced code blocks, line by line (a `#` line inside a fence is not a heading). */
function linesOutsideFences(text: string): string[] {
  const out: string[] = [];
  let fence: string | null = null;
  for (const line of text.split('\n')) {
    const opener = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null && opener) fence = opener[0] as string;
    else if (fence !== null && opener?.startsWith(fence)) fence = null;
    else if (fence === null) out.push(line);
  }
  return out;
}

/**
 * GitHub's anchor for a heading's text: inline markup dropped (code ticks, emphasis, a link keeps its text),
 * lower case, every character that is not a letter, digit, mark, underscore, hyphen or space removed, spaces
 * turned into hyphens.
 */
export function headingSlug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor of a Markdown text: its headings' slugs, a repeated slug numbered -1, -2, … as GitHub does. */
export function markdownAnchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of linesOutsideFences(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = headingSlug(heading);
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** Links of a Markdown text outside code (fenced blocks and inline code spans): `[text](target)` targets. */
export function markdownLinks(text: string): { target: string; line: number }[] {
  const links: { target: string; line: number }[] = [];
  let fence: string | null = null;
  text.split('\n').forEach((line, i) => {
    const opener = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null && opener) return void (fence = opener[0] as string);
    if (fence !== null) return void (opener?.startsWith(fence) ? (fence = null) : undefined);
    const prose = line.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
      links.push({ target: m[1] as string, line: i + 1 });
  });
  return links;
}
