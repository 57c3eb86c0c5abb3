import { sampleSchema, type RawSchema } from './fixtures';
import { parseConfigResponse } from './response';
import type { ConfigStructure } from './schema';
import { validateSubmission } from './submission';

function structure(change: (s: RawSchema) => void = () => undefined): ConfigStructure {
  const s = sampleSchema();
  change(s);
  const r = parseConfigResponse(s);
  if (!r.ok || r.value.ui_mode !== 'schema') throw new Error(`fixture invalid: ${JSON.stringify(r)}`);
  return r.value.structure;
}

/** A submission the sample form accepts (advanced off, so api_key and callback are hidden). */
const valid = (): Record<string, unknown> => ({
  nickname: 'zed',
  region: 'eu',
  games: ['a'],
  threshold: 3,
  accent: '#000000',
});

function errorsFor(config: Record<string, unknown>, s = structure()): Record<string, string> {
  const r = validateSubmission(s, config);
  return r.ok ? {} : Object.fromEntries(r.errors.map((e) => [e.field, e.message]));
}

describe('submission validation against the schema (spec 4.2 rule 3)', () => {
  it('accepts a valid submission and sends only what was submitted', () => {
    expect(validateSubmission(structure(), valid())).toEqual({ ok: true, config: valid() });
  });

  it('refuses a config that is not an object', () => {
    expect(errorsFor([] as unknown as Record<string, unknown>)).toHaveProperty('config');
  });

  it('names every missing required field', () => {
    expect(Object.keys(errorsFor({}))).toEqual(expect.arrayContaining(['nickname', 'region', 'games']));
  });

  it('refuses an empty string for a required text field and an empty array for a required multi_select', () => {
    expect(errorsFor({ ...valid(), nickname: '', games: [] })).toEqual({
      nickname: 'Nickname is required',
      games: 'Games is required',
    });
  });

  it('checks text length bounds and the pattern, with pattern_message', () => {
    expect(errorsFor({ ...valid(), nickname: 'z' }).nickname).toMatch(/at least 2/);
    expect(errorsFor({ ...valid(), nickname: 'z'.repeat(21) }).nickname).toMatch(/at most 20/);
    expect(errorsFor({ ...valid(), nickname: 'Zed' }).nickname).toBe('lowercase letters only');
  });

  it('refuses a non-string for a text field', () => {
    expect(errorsFor({ ...valid(), nickname: 42 }).nickname).toMatch(/string/);
  });

  it('checks number bounds and type', () => {
    expect(errorsFor({ ...valid(), min_level: -1 }).min_level).toMatch(/at least 0/);
    expect(errorsFor({ ...valid(), min_level: 101 }).min_level).toMatch(/at most 100/);
    expect(errorsFor({ ...valid(), min_level: '5' }).min_level).toMatch(/number/);
    expect(errorsFor({ ...valid(), min_level: '' }).min_level).toMatch(/number/);
  });

  it('checks slider bounds and step', () => {
    expect(errorsFor({ ...valid(), threshold: 10.5 }).threshold).toMatch(/at most 10/);
    expect(errorsFor({ ...valid(), threshold: 2.25 }).threshold).toMatch(/multiple of 0.5/);
    expect(errorsFor({ ...valid(), threshold: 9.5 })).toEqual({});
  });

  it('accepts only option values for select and radio, type included', () => {
    expect(errorsFor({ ...valid(), region: 'asia' }).region).toMatch(/one of "eu", "us"/);
    expect(errorsFor({ ...valid(), tier: '1' }).tier).toMatch(/one of 1, 2/);
    expect(errorsFor({ ...valid(), tier: 2 })).toEqual({});
  });

  it('checks multi_select values, duplicates and max_selections', () => {
    expect(errorsFor({ ...valid(), games: 'a' }).games).toMatch(/array/);
    expect(errorsFor({ ...valid(), games: ['z'] }).games).toMatch(/"z" is not one of/);
    expect(errorsFor({ ...valid(), games: ['a', 'a'] }).games).toMatch(/twice/);
    expect(errorsFor({ ...valid(), games: ['a', 'b', 'c'] }).games).toMatch(/at most 2/);
  });

  it('checks url format and colour format', () => {
    const on = { ...valid(), advanced: true, api_key: 'k' };
    expect(errorsFor({ ...on, callback: 'javascript:alert(1)' }).callback).toMatch(/http/);
    expect(errorsFor({ ...on, callback: 'https://ok.example/x' })).toEqual({});
    expect(errorsFor({ ...valid(), accent: 'red' }).accent).toMatch(/#1a2b3c/);
  });

  it('checks booleans for checkbox and toggle', () => {
    expect(errorsFor({ ...valid(), verified_only: 'true' }).verified_only).toMatch(/true or false/);
  });

  it('neither requires nor sends fields hidden by their conditions', () => {
    const r = validateSubmission(structure(), {
      ...valid(),
      advanced: false,
      api_key: 'secret',
      callback: 'not even a url',
    });
    expect(r).toEqual({ ok: true, config: { ...valid(), advanced: false } });
  });

  it('requires a conditional field once its condition holds', () => {
    expect(errorsFor({ ...valid(), advanced: true })).toEqual({ api_key: 'API key is required' });
  });

  it('uses a field default when evaluating conditions on an unsubmitted field', () => {
    const s = structure((x) => (x.sections[0]!.fields[7]!.default_value = true));
    expect(errorsFor(valid(), s)).toEqual({ api_key: 'API key is required' });
  });

  it('hides a field whose condition names a hidden field (cascade)', () => {
    const s = structure((x) => (x.sections[1]!.fields[2]!.condition = { field: 'api_key', equals: 'x' }));
    // api_key is hidden (advanced off), so accent's condition fails even though api_key was sent as 'x'.
    const r = validateSubmission(s, { ...valid(), api_key: 'x', accent: 'not a colour' });
    expect(r.ok && r.config).not.toHaveProperty('accent');
  });

  it('matches equals_any conditions', () => {
    const r = validateSubmission(structure(), {
      ...valid(),
      advanced: true,
      api_key: 'k',
      callback: 'https://a.example',
      region: 'us',
    });
    expect(r.ok && r.config.callback).toBe('https://a.example');
  });

  it('never sends display fields', () => {
    const r = validateSubmission(structure(), { ...valid(), notice: 'edited' });
    expect(r.ok && r.config).not.toHaveProperty('notice');
  });

  it('refuses unknown keys, naming them', () => {
    expect(errorsFor({ ...valid(), ghost: 1 })).toEqual({ ghost: 'ghost is not a field of this form' });
  });

  it('treats null as not submitted', () => {
    const r = validateSubmission(structure(), { ...valid(), bio: null });
    expect(r.ok && r.config).not.toHaveProperty('bio');
  });

  it('sends an empty string that clears an optional text field', () => {
    const r = validateSubmission(structure(), { ...valid(), bio: '' });
    expect(r.ok && r.config.bio).toBe('');
  });
});
