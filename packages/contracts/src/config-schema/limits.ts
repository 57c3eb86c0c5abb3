/** Limits of the configuration form schema (spec 2.6 to 2.9, 2.11, 8.7), in one place. */
export const CONFIG_LIMITS = {
  nameMax: 100,
  descriptionMax: 500,
  sectionsMin: 1,
  sectionsMax: 10,
  fieldsPerSectionMin: 1,
  fieldsPerSectionMax: 30,
  keyMax: 100,
  labelMax: 200,
  fieldDescriptionMax: 500,
  conditionsMax: 5,
  conditionFieldMax: 100,
  placeholderMax: 200,
  patternMessageMax: 200,
  suffixMax: 20,
  textDefaultMax: 1_000,
  textareaDefaultMax: 5_000,
  urlDefaultMax: 2_000,
  rowsMin: 2,
  rowsMax: 20,
  selectOptionsMax: 100,
  radioOptionsMax: 50,
  multiSelectOptionsMax: 100,
  optionLabelMax: 100,
  optionValueMax: 500,
  displayValueMax: 2_000,
  embedUrlMax: 2_000,
  /**
   * Not in the spec: a plugin-supplied regular expression runs on admin input, and JavaScript has no
   * regex timeout, so both sides are bounded (decision recorded in docs/plugin-broker.md).
   */
  patternMax: 500,
  submittedStringMax: 10_000,
} as const;

export const FIELD_KEY_PATTERN = /^[a-zA-Z0-9_]+$/;
export const COLOR_PATTERN = /^#[0-9a-fA-F]{6}$/;
export const URL_VALUE_PATTERN = /^https?:\/\//;

export const FIELD_TYPES = [
  'text',
  'textarea',
  'number',
  'select',
  'radio',
  'checkbox',
  'toggle',
  'secret',
  'url',
  'color',
  'slider',
  'multi_select',
  'display',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** One problem, named by the path of the offending property (`sections[0].fields[2].key`) or field key. */
export type FieldError = { field: string; message: string };
