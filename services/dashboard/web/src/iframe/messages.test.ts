import { clampHeight, embedOrigin, parseIframeMessage } from './messages';

describe('parseIframeMessage', () => {
  it('parses the four message types of spec 6.3', () => {
    expect(parseIframeMessage({ type: 'rl:resize', height: 812.4 })).toEqual({ type: 'rl:resize', height: 812 });
    expect(parseIframeMessage({ type: 'rl:saved' })).toEqual({ type: 'rl:saved' });
    expect(parseIframeMessage({ type: 'rl:dirty', dirty: true })).toEqual({ type: 'rl:dirty', dirty: true });
    expect(parseIframeMessage({ type: 'rl:toast', message: 'Done', kind: 'success' })).toEqual({
      type: 'rl:toast',
      message: 'Done',
      kind: 'success',
    });
  });

  it('defaults a toast to kind error', () => {
    expect(parseIframeMessage({ type: 'rl:toast', message: 'Oops' })).toEqual({
      type: 'rl:toast',
      message: 'Oops',
      kind: 'error',
    });
    expect(parseIframeMessage({ type: 'rl:toast', message: 'Oops', kind: 'weird' })).toEqual({
      type: 'rl:toast',
      message: 'Oops',
      kind: 'error',
    });
  });

  it('clamps the height to 200..4000', () => {
    expect(parseIframeMessage({ type: 'rl:resize', height: 5 })).toEqual({ type: 'rl:resize', height: 200 });
    expect(parseIframeMessage({ type: 'rl:resize', height: 1e9 })).toEqual({ type: 'rl:resize', height: 4000 });
    expect(clampHeight(-1)).toBe(200);
  });

  it('ignores malformed and unknown messages', () => {
    for (const data of [
      null,
      'rl:saved',
      [],
      {},
      { type: 'rl:resize', height: '300' },
      { type: 'rl:resize', height: Number.NaN },
      { type: 'rl:dirty', dirty: 'yes' },
      { type: 'rl:toast' },
      { type: 'rl:toast', message: 5 },
      { type: 'rl:visible' },
      { type: 'other' },
    ]) {
      expect(parseIframeMessage(data)).toBeNull();
    }
  });
});

describe('embedOrigin', () => {
  it('returns the origin of an http(s) URL, without path or query', () => {
    expect(embedOrigin('https://plugin.example:8443/embed?x=1&rl_token=abc')).toBe('https://plugin.example:8443');
  });

  it('refuses other schemes and garbage', () => {
    expect(embedOrigin('javascript:alert(1)')).toBeNull();
    expect(embedOrigin('not a url')).toBeNull();
  });
});
