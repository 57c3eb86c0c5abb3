import { DeadlineError, withDeadline } from './deadline';

describe('withDeadline', () => {
  it('answers with the work when it settles first', async () => {
    await expect(withDeadline(Promise.resolve(7), 60_000)).resolves.toBe(7);
    await expect(withDeadline(Promise.reject(new Error('boom')), 60_000)).rejects.toThrow('boom');
  });

  it('rejects with a DeadlineError naming the wait when the work never settles', async () => {
    const never = new Promise<never>(() => undefined);
    await expect(withDeadline(never, 1)).rejects.toEqual(new DeadlineError('timed out after 1 ms'));
    await expect(withDeadline(never, 1, 'enqueue timed out')).rejects.toThrow('enqueue timed out');
  });
});
