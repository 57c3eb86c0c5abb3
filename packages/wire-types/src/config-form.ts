/** GET /config answers (spec 2.6 to 2.11): a form the dashboard renders, or a page it frames. */

export type ConfigConditionValue = string | number | boolean;

/** Spec 2.9: shown only when field `field` has the value `equals` or one of `equals_any` (exactly one of the two). */
export type ConfigCondition = { field: string; equals?: ConfigConditionValue; equals_any?: ConfigConditionValue[] };

/** Properties every field has (spec 2.7). */
type FieldCommon = {
  /** Unique across the form, `^[a-zA-Z0-9_]+$`, at most 100 characters. */
  key: string;
  label: string;
  description?: string;
  condition?: ConfigCondition;
  /** All must hold (AND), at most 5. */
  conditions?: ConfigCondition[];
  /** Key of the start field: renders this one inline as the end of a range (spec 2.9). */
  pair_with?: string;
};

/** `validation` of text, textarea, secret and url; `min` and `max` are string lengths. */
export type TextValidation = {
  required?: boolean;
  min?: number;
  max?: number;
  pattern?: string;
  pattern_message?: string;
};
export type RequiredOnly = { required?: boolean };
export type ConfigOption = { label: string; value: string | number };

type TextLike<T extends string> = FieldCommon & {
  type: T;
  placeholder?: string;
  default_value?: string;
  validation?: TextValidation;
};
type Choice<T extends string> = FieldCommon & {
  type: T;
  options: ConfigOption[];
  default_value?: string | number;
  validation?: RequiredOnly;
};

/** One form field (spec 2.8), discriminated by `type`. */
export type ConfigField =
  | TextLike<'text'>
  | TextLike<'secret'>
  | TextLike<'url'> // values start with http:// or https://
  | (TextLike<'textarea'> & { rows?: number })
  | (FieldCommon & {
      type: 'number';
      step?: number;
      suffix?: string;
      default_value?: number;
      validation?: { required?: boolean; min?: number; max?: number };
    })
  | Choice<'select'>
  | Choice<'radio'>
  | (FieldCommon & { type: 'checkbox'; default_value?: boolean })
  | (FieldCommon & { type: 'toggle'; default_value?: boolean })
  | (FieldCommon & { type: 'color'; default_value?: string; validation?: RequiredOnly }) // `#rrggbb`
  | (FieldCommon & {
      type: 'slider';
      min: number;
      max: number;
      step?: number;
      default_value?: number;
      show_value?: boolean;
      suffix?: string;
    })
  | (FieldCommon & {
      type: 'multi_select';
      options: ConfigOption[];
      default_value?: (string | number)[];
      max_selections?: number;
      validation?: RequiredOnly;
    })
  | (FieldCommon & { type: 'display'; value: string }); // read-only text, never submitted

export type ConfigFieldType = ConfigField['type'];
export type ConfigFieldOf<T extends ConfigFieldType> = Extract<ConfigField, { type: T }>;

export type ConfigSection = {
  title: string;
  description?: string;
  collapsible?: boolean;
  /** Honoured only when `collapsible`. */
  default_collapsed?: boolean;
  fields: ConfigField[];
};

/** Schema mode (spec 2.6): the form, and `values` pre-filling it (keys are field keys, always fetched fresh). */
export type ConfigSchemaResponse = {
  version: 1;
  /** Absent means `schema`. */
  ui_mode?: 'schema';
  name: string;
  description?: string;
  sections: ConfigSection[];
  values?: Record<string, unknown>;
};

/** Iframe mode (spec 2.11): the dashboard frames `embed_url` (HTTPS) with an `rl_token` query parameter. */
export type IframeConfigResponse = {
  version: 1;
  ui_mode: 'iframe';
  name: string;
  description?: string;
  embed_url: string;
};

export type ConfigResponse = ConfigSchemaResponse | IframeConfigResponse;
