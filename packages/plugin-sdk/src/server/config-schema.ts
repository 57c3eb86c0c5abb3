/**
 * A typed builder for GET /config answers (spec 2.6 to 2.11). Each field builder keeps its key and
 * the type of its value, so `ValuesOf<typeof form>` is the type of the saved config and
 * `form.response(values)` refuses values of the wrong type at compile time. The output is plain JSON
 * that the service's own validator accepts (config-schema.test.ts checks every builder against it).
 */

export type Scalar = string | number | boolean;
export type Condition = { field: string; equals: Scalar; equals_any?: undefined } | { field: string; equals_any: Scalar[]; equals?: undefined };
export type Option<V extends string | number = string | number> = { label: string; value: V };

type Common = {
  description?: string;
  /** Shown only when this holds (spec 2.9). */
  condition?: Condition;
  /** Shown only when all of these hold (at most 5). */
  conditions?: Condition[];
  /** Key of the start field: renders this one inline as the end of a range (spec 2.9). */
  pair_with?: string;
};
export type TextValidation = { required?: boolean; min?: number; max?: number; pattern?: string; pattern_message?: string };
type TextOptions = Common & { placeholder?: string; default_value?: string; validation?: TextValidation };

declare const VALUE: unique symbol;
/** A field with its key `K` and the type `V` of its submitted value (a compile-time tag only). */
export type Field<K extends string = string, V = unknown> = { type: string; key: K; label: string; readonly [VALUE]?: V } & Record<string, unknown>;

function field<K extends string, V>(type: string, key: K, label: string, options: object): Field<K, V> {
  return { type, key, label, ...options };
}

export const fields = {
  text: <K extends string>(key: K, label: string, o: TextOptions = {}) => field<K, string>('text', key, label, o),
  secret: <K extends string>(key: K, label: string, o: TextOptions = {}) => field<K, string>('secret', key, label, o),
  /** Values must start with http:// or https://, always checked. */
  url: <K extends string>(key: K, label: string, o: TextOptions = {}) => field<K, string>('url', key, label, o),
  textarea: <K extends string>(key: K, label: string, o: TextOptions & { rows?: number } = {}) => field<K, string>('textarea', key, label, o),
  number: <K extends string>(key: K, label: string, o: Common & { step?: number; suffix?: string; default_value?: number; validation?: { required?: boolean; min?: number; max?: number } } = {}) => field<K, number>('number', key, label, o),
  slider: <K extends string>(key: K, label: string, o: Common & { min: number; max: number; step?: number; default_value?: number; show_value?: boolean; suffix?: string }) => field<K, number>('slider', key, label, o),
  select: <K extends string, const V extends string | number>(key: K, label: string, o: Common & { options: Option<V>[]; default_value?: NoInfer<V>; validation?: { required?: boolean } }) => field<K, V>('select', key, label, o),
  radio: <K extends string, const V extends string | number>(key: K, label: string, o: Common & { options: Option<V>[]; default_value?: NoInfer<V>; validation?: { required?: boolean } }) => field<K, V>('radio', key, label, o),
  multiSelect: <K extends string, const V extends string | number>(key: K, label: string, o: Common & { options: Option<V>[]; default_value?: NoInfer<V>[]; max_selections?: number; validation?: { required?: boolean } }) =>
    field<K, V[]>('multi_select', key, label, o),
  checkbox: <K extends string>(key: K, label: string, o: Common & { default_value?: boolean } = {}) => field<K, boolean>('checkbox', key, label, o),
  toggle: <K extends string>(key: K, label: string, o: Common & { default_value?: boolean } = {}) => field<K, boolean>('toggle', key, label, o),
  /** `#rrggbb`. */
  color: <K extends string>(key: K, label: string, o: Common & { default_value?: string; validation?: { required?: boolean } } = {}) => field<K, string>('color', key, label, o),
  /** Read-only text (bold, italic, code, links); never submitted, so it has no value type. */
  display: <K extends string>(key: K, label: string, value: string, o: Common = {}) => field<K, never>('display', key, label, { value, ...o }),
};

export type Section<F extends readonly Field[] = readonly Field[]> = {
  title: string;
  description?: string;
  collapsible?: boolean;
  default_collapsed?: boolean;
  fields: F;
};

export function section<const F extends readonly Field[]>(title: string, fieldList: F, o: Omit<Section, 'title' | 'fields'> = {}): Section<F> {
  return { title, ...o, fields: fieldList };
}

type FieldsOf<S extends readonly Section[]> = S[number]['fields'][number];
type ValueOf<F> = F extends { readonly [VALUE]?: infer V } ? V : never;
/** The saved configuration of a form: each non-display field's key, optional, with its value type. */
export type ConfigValues<S extends readonly Section[]> = {
  [F in FieldsOf<S> as [ValueOf<F>] extends [never] ? never : F['key']]?: ValueOf<F>;
};
export type ValuesOf<T> = T extends ConfigForm<infer S> ? ConfigValues<S> : never;

export type SchemaResponse = {
  version: 1;
  ui_mode: 'schema';
  name: string;
  description?: string;
  sections: readonly Section[];
  values?: Record<string, unknown>;
};

export type IframeResponse = { version: 1; ui_mode: 'iframe'; name: string; description?: string; embed_url: string };

export type ConfigForm<S extends readonly Section[]> = {
  name: string;
  sections: S;
  /** Every field of every section, in order. */
  fields: readonly Field[];
  /** The GET /config answer with these values pre-filled (always fetched fresh by the service). */
  response(values?: ConfigValues<S>): SchemaResponse;
};

export function configForm<const S extends readonly Section[]>(def: { name: string; description?: string; sections: S }): ConfigForm<S> {
  return {
    name: def.name,
    sections: def.sections,
    fields: def.sections.flatMap((s): readonly Field[] => s.fields),
    response: (values) => ({
      version: 1,
      ui_mode: 'schema',
      name: def.name,
      ...(def.description !== undefined ? { description: def.description } : {}),
      sections: def.sections,
      ...(values ? { values } : {}),
    }),
  };
}

/** The GET /config answer of iframe mode (spec 2.11): the dashboard frames `embed_url` with `rl_token`. */
export function iframeResponse(def: { name: string; description?: string; embedUrl: string }): IframeResponse {
  return { version: 1, ui_mode: 'iframe', name: def.name, ...(def.description !== undefined ? { description: def.description } : {}), embed_url: def.embedUrl };
}
