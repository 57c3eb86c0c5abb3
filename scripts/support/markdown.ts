// What a Markdown file offers as link targets: the anchors GitHub gives its headings. Shared by the manifests
// validator (every alert's runbook_url must land on a heading) and the docs' link test.
import GithubSlugger from 'github-slugger';

/** Each line with its number and whether it lies inside a fenced code block (a fence's own lines count as inside). */
function* markdownLines(text: string): Generator<{ line: string; number: number; inFence: boolean }> {
  let fence: string | null = null;
  let number = 0;
  for (const line of text.split('\n')) {
    number++;
    const opener = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null && opener) fence = opener[0] as string;
    else if (fence !== null && opener?.startsWith(fence)) fence = null;
    else if (fence === null) {
      yield { line, number, inFence: false };
      continue;
    }
    yield { line, number, inFence: true };
  }
}

/**
 * Every anchor of a Markdown text: its headings' slugs as GitHub makes them (github-slugger, which also
 * numbers a repeated slug -1, -2, …), with a link in a heading reduced to its text first.
 */
export function markdownAnchors(text: string): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  for (const { line, inFence } of markdownLines(text)) {
    const heading = inFence ? undefined : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading !== undefined) anchors.add(slugger.slug(heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')));
  }
  return anchors;
}

/** Links of a Markdown text outside code (fenced blocks and inline code spans): `[text](target)` targets. */
export function markdownLinks(text: string): { target: string; line: number }[] {
  const links: { target: string; line: number }[] = [];
  for (const { line, number, inFence } of markdownLines(text)) {
    if (inFence) continue;
    const prose = line.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
      links.push({ target: m[1] as string, line: number });
  }
  return links;
}
