/**
 * A typed builder for GET /config answers (spec 2.6 to 2.11). Each field builder keeps its key and
 * the type of its value, so `ValuesOf<typeof form>` is the type of the saved config and
 * `form.response(values)` refuses values of the wrong type at compile time. The output is plain JSON
 * that the service's own validator accepts (config-schema.test.ts checks every builder against it).
 */

import type {
  ConfigConditionValue,
  ConfigFieldOf,
  ConfigFieldType,
  ConfigSchemaResponse,
  ConfigSection,
  IframeConfigResponse,
} from '@rolelink/wire-types';

export type Scalar = ConfigConditionValue;
/** A visibility condition (spec 2.9), stricter than the wire's: exactly one of `equals` and `equals_any`. */
export type Condition =
  | { field: string; equals: Scalar; equals_any?: undefined }
  | { field: string; equals_any: Scalar[]; equals?: undefined };
/** An option whose value type `V` is kept, so the saved value is typed too. */
export type Option<V extends string | number = string | number> = { label: string; value: V };

/** What a field builder takes besides key and label: the field's wire properties, with the stricter conditions. */
type OptionsOf<T extends ConfigFieldType> = Omit<
  ConfigFieldOf<T>,
  'type' | 'key' | 'label' | 'condition' | 'conditions'
> & {
  /** Shown only when this holds (spec 2.9). */
  condition?: Condition;
  /** Shown only when all of these hold (at most 5). */
  conditions?: Condition[];
};
/** Choice fields: options and defaults typed by the option values `V`. */
type ChoiceOptions<T extends 'select' | 'radio', V extends string | number> = Omit<
  OptionsOf<T>,
  'options' | 'default_value'
> & { options: Option<V>[]; default_value?: NoInfer<V> };
export type { TextValidation } from '@rolelink/wire-types';

declare const VALUE: unique symbol;
/** A field of type `T` with its key `K` and the type `V` of its submitted value (a compile-time tag only). */
export type Field<
  K extends string = string,
  V = unknown,
  T extends ConfigFieldType = ConfigFieldType,
> = ConfigFieldOf<T> & { key: K; readonly [VALUE]?: V };

function field<T extends ConfigFieldType, K extends string, V>(
  type: T,
  key: K,
  label: string,
  options: object,
): Field<K, V, T> {
  // The builders' option types are the wire type's own properties (OptionsOf), so this is that field.
  return { type, key, label, ...options } as Field<K, V, T>;
}

export const fields = {
  text: <K extends string>(key: K, label: string, o: OptionsOf<'text'> = {}) =>
    field<'text', K, string>('text', key, label, o),
  secret: <K extends string>(key: K, label: string, o: OptionsOf<'secret'> = {}) =>
    field<'secret', K, string>('secret', key, label, o),
  /** Values must start with http:// or https://, always checked. */
  url: <K extends string>(key: K, label: string, o: OptionsOf<'url'> = {}) =>
    field<'url', K, string>('url', key, label, o),
  textarea: <K extends string>(key: K, label: string, o: OptionsOf<'textarea'> = {}) =>
    field<'textarea', K, string>('textarea', key, label, o),
  number: <K extends string>(key: K, label: string, o: OptionsOf<'number'> = {}) =>
    field<'number', K, number>('number', key, label, o),
  slider: <K extends string>(key: K, label: string, o: OptionsOf<'slider'>) =>
    field<'slider', K, number>('slider', key, label, o),
  select: <K extends string, const V extends string | number>(key: K, label: string, o: ChoiceOptions<'select', V>) =>
    field<'select', K, V>('select', key, label, o),
  radio: <K extends string, const V extends string | number>(key: K, label: string, o: ChoiceOptions<'radio', V>) =>
    field<'radio', K, V>('radio', key, label, o),
  multiSelect: <K extends string, const V extends string | number>(
    key: K,
    label: string,
    o: Omit<OptionsOf<'multi_select'>, 'options' | 'default_value'> & {
      options: Option<V>[];
      default_value?: NoInfer<V>[];
    },
  ) => field<'multi_select', K, V[]>('multi_select', key, label, o),
  checkbox: <K extends string>(key: K, label: string, o: OptionsOf<'checkbox'> = {}) =>
    field<'checkbox', K, boolean>('checkbox', key, label, o),
  toggle: <K extends string>(key: K, label: string, o: OptionsOf<'toggle'> = {}) =>
    field<'toggle', K, boolean>('toggle', key, label, o),
  /** `#rrggbb`. */
  color: <K extends string>(key: K, label: string, o: OptionsOf<'color'> = {}) =>
    field<'color', K, string>('color', key, label, o),
  /** Read-only text (bold, italic, code, links); never submitted, so it has no value type. */
  display: <K extends string>(key: K, label: string, value: string, o: Omit<OptionsOf<'display'>, 'value'> = {}) =>
    field<'display', K, never>('display', key, label, { value, ...o }),
};

/** A section as the builder keeps it: the wire's section, with its fields' keys and value types kept. */
export type Section<F extends readonly Field[] = readonly Field[]> = Omit<ConfigSection, 'fields'> & { fields: F };

export function section<const F extends readonly Field[]>(
  title: string,
  fieldList: F,
  o: Omit<Section, 'title' | 'fields'> = {},
): Section<F> {
  return { title, ...o, fields: fieldList };
}

type FieldsOf<S extends readonly Section[]> = S[number]['fields'][number];
type ValueOf<F> = F extends { readonly [VALUE]?: infer V } ? V : never;
/** The saved configuration of a form: each non-display field's key, optional, with its value type. */
export type ConfigValues<S extends readonly Section[]> = {
  [F in FieldsOf<S> as [ValueOf<F>] extends [never] ? never : F['key']]?: ValueOf<F>;
};
export type ValuesOf<T> = T extends ConfigForm<infer S> ? ConfigValues<S> : never;

/** The GET /config answer of schema mode (spec 2.6), as it crosses the wire. */
export type SchemaResponse = ConfigSchemaResponse;

/** The GET /config answer of iframe mode (spec 2.11). */
export type IframeResponse = IframeConfigResponse;

export type ConfigForm<S extends readonly Section[]> = {
  name: string;
  sections: S;
  /** Every field of every section, in order. */
  fields: readonly Field[];
  /** The GET /config answer with these values pre-filled (always fetched fresh by the service). */
  response(values?: ConfigValues<S>): SchemaResponse;
};

export function configForm<const S extends readonly Section[]>(def: {
  name: string;
  description?: string;
  sections: S;
}): ConfigForm<S> {
  return {
    name: def.name,
    sections: def.sections,
    fields: def.sections.flatMap((s): readonly Field[] => s.fields),
    response: (values) => ({
      version: 1,
      ui_mode: 'schema',
      name: def.name,
      ...(def.description !== undefined ? { description: def.description } : {}),
      // Copies: the answer's arrays are the wire's (mutable), the form's are the author's (readonly).
      sections: def.sections.map((s) => ({ ...s, fields: [...s.fields] })),
      ...(values ? { values } : {}),
    }),
  };
}

/** The GET /config answer of iframe mode (spec 2.11): the dashboard frames `embed_url` with `rl_token`. */
export function iframeResponse(def: { name: string; description?: string; embedUrl: string }): IframeResponse {
  return {
    version: 1,
    ui_mode: 'iframe',
    name: def.name,
    ...(def.description !== undefined ? { description: def.description } : {}),
    embed_url: def.embedUrl,
  };
}
