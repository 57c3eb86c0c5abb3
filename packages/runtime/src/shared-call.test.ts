import { SharedCall } from './shared-call';

/** A read whose answers the test releases by hand, in order. */
function controlledRead() {
  const calls: { key: string; resolve(v: string): void; reject(e: Error): void }[] = [];
  const read = (key: string) => new Promise<string>((resolve, reject) => calls.push({ key, resolve, reject }));
  return { calls, read };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('SharedCall', () => {
  it('sends one read at the end of the turn for every caller of that turn', async () => {
    const { calls, read } = controlledRead();
    const lookup = new SharedCall(read);
    const callers = [lookup.get('k'), lookup.get('k'), lookup.get('k')];
    expect(calls).toHaveLength(0); // not before the turn ends: later callers of the turn join it
    await tick();
    expect(calls).toHaveLength(1);
    calls[0]!.resolve('state');
    await expect(Promise.all(callers)).resolves.toEqual(['state', 'state', 'state']);
  });

  it('never joins a read already sent: callers arriving meanwhile share the next read', async () => {
    const { calls, read } = controlledRead();
    const lookup = new SharedCall(read);
    const first = lookup.get('k');
    await tick();
    expect(calls).toHaveLength(1);
    const second = lookup.get('k');
    const third = lookup.get('k');
    await tick();
    expect(calls).toHaveLength(1); // waiting, not sent yet
    calls[0]!.resolve('state before');
    await expect(first).resolves.toBe('state before');
    await tick();
    expect(calls).toHaveLength(2); // sent after the first answered, so after the later callers arrived
    calls[1]!.resolve('state after');
    await expect(second).resolves.toBe('state after');
    await expect(third).resolves.toBe('state after');
  });

  it('reads each key on its own and forgets a key once nobody waits', async () => {
    const { calls, read } = controlledRead();
    const lookup = new SharedCall(read);
    const a = lookup.get('a');
    const b = lookup.get('b');
    await tick();
    expect(calls.map((c) => c.key)).toEqual(['a', 'b']);
    calls[0]!.resolve('A');
    calls[1]!.resolve('B');
    await expect(a).resolves.toBe('A');
    await expect(b).resolves.toBe('B');
    await tick();
    const again = lookup.get('a');
    await tick();
    expect(calls).toHaveLength(3); // a fresh read
    calls[2]!.resolve('A2');
    await expect(again).resolves.toBe('A2');
  });

  it('passes a failed read to the callers that shared it, and the next caller reads again', async () => {
    const { calls, read } = controlledRead();
    const lookup = new SharedCall(read);
    const first = lookup.get('k');
    await tick();
    const waiting = lookup.get('k');
    calls[0]!.reject(new Error('db down'));
    await expect(first).rejects.toThrow('db down');
    await tick();
    calls[1]!.reject(new Error('still down'));
    await expect(waiting).rejects.toThrow('still down');
    await tick();
    const later = lookup.get('k');
    await tick();
    expect(calls).toHaveLength(3);
    calls[2]!.resolve('ok');
    await expect(later).resolves.toBe('ok');
  });

  it("gives a shared call its first caller's argument", async () => {
    const args: (string | undefined)[] = [];
    const shared = new SharedCall((key: string, arg: string | undefined) => {
      args.push(arg);
      return Promise.resolve(`${key}:${arg}`);
    });
    const answers = await Promise.all([shared.get('k', 'first'), shared.get('k', 'second'), shared.get('k')]);
    expect(args).toEqual(['first']);
    expect(answers).toEqual(['k:first', 'k:first', 'k:first']);
  });

  it('calls a quiet key at once when asked to, and still shares the next call among those who wait', async () => {
    const { calls, read } = controlledRead();
    const shared = new SharedCall(read, { atOnce: true });
    const first = shared.get('k');
    expect(calls).toHaveLength(1); // no wait for the end of the turn
    const second = shared.get('k');
    const third = shared.get('k');
    expect(calls).toHaveLength(1);
    calls[0]!.resolve('one');
    await expect(first).resolves.toBe('one');
    await tick();
    expect(calls).toHaveLength(2);
    calls[1]!.resolve('two');
    await expect(Promise.all([second, third])).resolves.toEqual(['two', 'two']);
  });

  describe('with spacingMs', () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it('starts the calls of one key that far apart, and everyone asking before a call starts shares it', async () => {
      const { calls, read } = controlledRead();
      const shared = new SharedCall(read, { atOnce: true, spacingMs: 10 });
      const first = shared.get('k');
      expect(calls).toHaveLength(1);
      calls[0]!.resolve('one');
      await expect(first).resolves.toBe('one');
      // Due again only 10 ms after the first started: the callers of the next 10 ms wait together.
      const second = shared.get('k');
      await jest.advanceTimersByTimeAsync(4);
      const third = shared.get('k');
      await jest.advanceTimersByTimeAsync(5);
      expect(calls).toHaveLength(1);
      await jest.advanceTimersByTimeAsync(1);
      expect(calls).toHaveLength(2);
      const fourth = shared.get('k'); // after the second call started: it waits for the third
      calls[1]!.resolve('two');
      await expect(Promise.all([second, third])).resolves.toEqual(['two', 'two']);
      await jest.advanceTimersByTimeAsync(9);
      expect(calls).toHaveLength(2);
      await jest.advanceTimersByTimeAsync(1);
      expect(calls).toHaveLength(3);
      calls[2]!.resolve('three');
      await expect(fourth).resolves.toBe('three');
    });

    it('spaces each key on its own, and calls a key that was quiet long enough at once', async () => {
      const { calls, read } = controlledRead();
      const shared = new SharedCall(read, { atOnce: true, spacingMs: 10 });
      const a = shared.get('a');
      const b = shared.get('b');
      expect(calls.map((c) => c.key)).toEqual(['a', 'b']);
      calls[0]!.resolve('A');
      calls[1]!.resolve('B');
      await expect(Promise.all([a, b])).resolves.toEqual(['A', 'B']);
      await jest.advanceTimersByTimeAsync(10);
      const again = shared.get('a');
      expect(calls).toHaveLength(3); // no wait: its last call started 10 ms ago
      calls[2]!.resolve('A2');
      await expect(again).resolves.toBe('A2');
    });
  });
});
