import { inlineText, parseInlineFormat, safeHref, type InlineNode } from './inline-format';

const text = (t: string): InlineNode => ({ kind: 'text', text: t });

function links(nodes: readonly InlineNode[]): string[] {
  return nodes.flatMap((n) =>
    n.kind === 'link'
      ? [n.href, ...links(n.children)]
      : n.kind === 'bold' || n.kind === 'italic'
        ? links(n.children)
        : [],
  );
}

describe('parseInlineFormat', () => {
  it('leaves plain text as one text node', () => {
    expect(parseInlineFormat('Hello, world')).toEqual([text('Hello, world')]);
  });

  it('returns no nodes for an empty string', () => {
    expect(parseInlineFormat('')).toEqual([]);
  });

  it('parses bold, italic and inline code', () => {
    expect(parseInlineFormat('a **b** *c* `d`')).toEqual([
      text('a '),
      { kind: 'bold', children: [text('b')] },
      text(' '),
      { kind: 'italic', children: [text('c')] },
      text(' '),
      { kind: 'code', text: 'd' },
    ]);
  });

  it('keeps formatting markers inside code literal', () => {
    expect(parseInlineFormat('`**not bold** [x](https://a.example)`')).toEqual([
      { kind: 'code', text: '**not bold** [x](https://a.example)' },
    ]);
  });

  it('nests italic inside bold and bold inside italic', () => {
    expect(parseInlineFormat('**a *b* c**')).toEqual([
      { kind: 'bold', children: [text('a '), { kind: 'italic', children: [text('b')] }, text(' c')] },
    ]);
    expect(parseInlineFormat('*a **b** c*')).toEqual([
      { kind: 'italic', children: [text('a '), { kind: 'bold', children: [text('b')] }, text(' c')] },
    ]);
  });

  it('turns line breaks (\\n, \\r\\n, \\r) into break nodes', () => {
    expect(parseInlineFormat('one\ntwo\r\nthree\rfour')).toEqual([
      text('one'),
      { kind: 'break' },
      text('two'),
      { kind: 'break' },
      text('three'),
      { kind: 'break' },
      text('four'),
    ]);
  });

  it('parses a markdown link with formatted text', () => {
    expect(parseInlineFormat('see [the **docs**](https://docs.example/guide?a=1#top).')).toEqual([
      text('see '),
      {
        kind: 'link',
        href: 'https://docs.example/guide?a=1#top',
        children: [text('the '), { kind: 'bold', children: [text('docs')] }],
      },
      text('.'),
    ]);
  });

  it('keeps balanced parentheses in a link target', () => {
    expect(links(parseInlineFormat('[wiki](https://en.wikipedia.org/wiki/Foo_(bar))'))).toEqual([
      'https://en.wikipedia.org/wiki/Foo_(bar)',
    ]);
  });

  it('auto-links bare http and https URLs without trailing punctuation', () => {
    const nodes = parseInlineFormat('Go to https://a.example/x, or (http://b.example/y). Done');
    expect(nodes).toEqual([
      text('Go to '),
      { kind: 'link', href: 'https://a.example/x', children: [text('https://a.example/x')] },
      text(', or ('),
      { kind: 'link', href: 'http://b.example/y', children: [text('http://b.example/y')] },
      text('). Done'),
    ]);
  });

  it('auto-links a URL inside bold text', () => {
    expect(links(parseInlineFormat('**https://a.example**'))).toEqual(['https://a.example/']);
  });

  it('does not auto-link inside link text (no nested anchors)', () => {
    const nodes = parseInlineFormat('[https://shown.example](https://target.example)');
    expect(nodes).toEqual([
      { kind: 'link', href: 'https://target.example/', children: [text('https://shown.example')] },
    ]);
  });

  it('does not auto-link URLs glued to a word', () => {
    expect(links(parseInlineFormat('xhttps://a.example'))).toEqual([]);
  });

  it('leaves the literal characters of unclosed markers', () => {
    expect(parseInlineFormat('**bold without end')).toEqual([text('**bold without end')]);
    expect(parseInlineFormat('*italic without end')).toEqual([text('*italic without end')]);
    expect(parseInlineFormat('`code without end')).toEqual([text('`code without end')]);
    expect(parseInlineFormat('[text without target]')).toEqual([text('[text without target]')]);
    expect(parseInlineFormat('[text](https://a.example')).toEqual([
      text('[text]('),
      { kind: 'link', href: 'https://a.example/', children: [text('https://a.example')] },
    ]);
  });

  it('does not treat spaced-out asterisks as emphasis', () => {
    expect(parseInlineFormat('2 * 3 * 4 and a ** b **')).toEqual([text('2 * 3 * 4 and a ** b **')]);
  });

  it('survives crossed and piled-up markers without losing text', () => {
    for (const input of [
      '***x***',
      '**a *b** c*',
      '*a **b* c**',
      '****',
      '**',
      '*',
      '``',
      '[](https://a.example)',
      '[[x](https://a.example)](https://b.example)',
    ]) {
      const nodes = parseInlineFormat(input);
      expect(inlineText(nodes).replace(/\*|`|\[|\]|\(|\)|https:\/\/[ab]\.example/g, '')).toBe(
        input.replace(/\*|`|\[|\]|\(|\)|https:\/\/[ab]\.example/g, ''),
      );
    }
  });

  it('keeps HTML as literal text', () => {
    expect(parseInlineFormat('<script>alert(1)</script><img src=x onerror=alert(1)>')).toEqual([
      text('<script>alert(1)</script><img src=x onerror=alert(1)>'),
    ]);
  });

  it('never links javascript:, data:, vbscript: or relative targets', () => {
    const hostile = [
      '[click](javascript:alert(1))',
      '[click](JaVaScRiPt:alert(1))',
      '[click]( javascript:alert(1))',
      '[click](java\tscript:alert(1))',
      '[click](data:text/html,<script>alert(1)</script>)',
      '[click](vbscript:msgbox(1))',
      '[click](//evil.example/x)',
      '[click](/relative)',
      '[click](https://)',
      'javascript:alert(1)',
      'data:text/html;base64,PHNjcmlwdD4=',
    ];
    for (const input of hostile) expect(links(parseInlineFormat(input))).toEqual([]);
  });

  it('renders an unsafe link as its text only', () => {
    expect(parseInlineFormat('[click **me**](javascript:alert(1)) now')).toEqual([
      text('click '),
      { kind: 'bold', children: [text('me')] },
      text(' now'),
    ]);
  });

  it('handles long hostile input quickly', () => {
    const started = Date.now();
    parseInlineFormat('*['.repeat(1000) + '**('.repeat(300) + '`');
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('safeHref', () => {
  it('accepts absolute http and https URLs and normalises them', () => {
    expect(safeHref('https://A.example/path')).toBe('https://a.example/path');
    expect(safeHref('HTTP://a.example')).toBe('http://a.example/');
    expect(safeHref('  https://a.example/x  ')).toBe('https://a.example/x');
  });

  it('refuses every other scheme and malformed URLs', () => {
    for (const raw of [
      'javascript:alert(1)',
      'mailto:a@b.example',
      'ftp://a.example',
      'data:,x',
      '//a.example',
      'https://',
      'https://a.example/\u0000',
      'https://a b.example',
      '',
    ]) {
      expect(safeHref(raw)).toBeNull();
    }
  });
});
