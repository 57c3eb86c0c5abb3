import { BODY_EXCERPT_CHARS, bodyExcerpt, refusalDetail } from './call-plugin';

describe("bodyExcerpt: a refusing plugin's body, safe to show an admin", () => {
  it('keeps a short body as it is, white space collapsed', () => {
    expect(bodyExcerpt(Buffer.from('  {"error": "unknown token"}\n'))).toBe('{"error": "unknown token"}');
    expect(bodyExcerpt(Buffer.from('a\t\tb\r\n\r\nc'))).toBe('a b c');
  });

  it('replaces control characters and bidirectional overrides', () => {
    expect(bodyExcerpt(Buffer.from('x\u0000y\u001b[31mz\u007f\u0085w\u202eq\u2066r'))).toBe('x y [31mz w q r');
  });

  it('cuts at the limit with an ellipsis, never inside a character', () => {
    const cut = bodyExcerpt(Buffer.from('😀'.repeat(400)));
    expect(Array.from(cut)).toHaveLength(BODY_EXCERPT_CHARS);
    expect(cut.endsWith('😀…')).toBe(true);
    expect(Array.from(bodyExcerpt(Buffer.from('y'.repeat(300))))).toHaveLength(300);
    expect(bodyExcerpt(Buffer.from('y'.repeat(300)))).not.toContain('…');
  });

  it('decodes no more of a large body than it can show', () => {
    const huge = Buffer.concat([Buffer.from('z'.repeat(10)), Buffer.alloc(50_000, 0x20), Buffer.from('tail')]);
    expect(bodyExcerpt(huge)).toBe('zzzzzzzzzz…');
  });

  it('says the status, and that the body was empty when it was', () => {
    expect(refusalDetail(403, Buffer.from('no'))).toBe('plugin answered 403: no');
    expect(refusalDetail(500, Buffer.alloc(0))).toBe('plugin answered 500 with an empty body');
    expect(refusalDetail(500, Buffer.from('\u0000\n '))).toBe('plugin answered 500 with an empty body');
  });
});
