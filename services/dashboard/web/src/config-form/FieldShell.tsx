import type { Field } from '@rolelink/contracts';
import type { ReactNode } from 'react';
import { fieldIds, isRequired, joinIds } from './field-props';
import styles from './FieldShell.module.css';
// The shared field parts; `Field` is the plugin's field type here, so the box is FieldBox.
import { Field as FieldBox, FieldErrorText as ErrorText, FieldHelp } from '../components/Field';

/** Label, description, the control and its error: the frame of every single-input field. */
export function FieldShell({
  field,
  id,
  error,
  children,
}: {
  field: Field;
  id: string;
  error: string | undefined;
  children: ReactNode;
}) {
  const ids = fieldIds(id);
  return (
    <FieldBox>
      <FieldLabel field={field} htmlFor={id} />
      <FieldDescription id={ids.description} text={field.description} />
      {children}
      <FieldProblem id={ids.error} error={error} />
    </FieldBox>
  );
}

/**
 * The frame of a field made of several inputs (radio, multi_select): a fieldset named by its legend and
 * described by the description, the `hint` (if given, it must carry `fieldIds(id).hint`) and the error.
 * `children` are the choices.
 */
export function FieldGroup({
  field,
  id,
  error,
  hint,
  children,
}: {
  field: Field;
  id: string;
  error: string | undefined;
  hint?: ReactNode;
  children: ReactNode;
}) {
  const ids = fieldIds(id);
  return (
    <FieldBox
      as="fieldset"
      aria-describedby={joinIds(field.description && ids.description, hint != null && ids.hint, error && ids.error)}
      aria-invalid={error ? true : undefined}
      aria-required={isRequired(field) || undefined}
    >
      <legend>
        {field.label}
        {isRequired(field) ? <RequiredMark /> : null}
      </legend>
      <FieldDescription id={ids.description} text={field.description} />
      {hint}
      <div className="options">{children}</div>
      <FieldProblem id={ids.error} error={error} />
    </FieldBox>
  );
}

/** The visible label of a single input, with the required mark beside it. */
export function FieldLabel({ field, htmlFor }: { field: Field; htmlFor: string }) {
  return (
    <div className={styles.label}>
      <label htmlFor={htmlFor}>{field.label}</label>
      {isRequired(field) ? <RequiredMark /> : null}
    </div>
  );
}

/** Kept outside the <label> and hidden from assistive tech: the input's aria-required says it instead. */
export function RequiredMark() {
  return (
    <span className={styles.requiredMark} aria-hidden="true" title="Required">
      *
    </span>
  );
}

/** The plugin's help text under the label; the input's aria-describedby points at `id`. */
export function FieldDescription({ id, text }: { id: string; text: string | undefined }) {
  if (!text) return null;
  return <FieldHelp id={id}>{text}</FieldHelp>;
}

/** The field's problem, if it has one; the input's aria-describedby points at `id`. */
export function FieldProblem({ id, error }: { id: string; error: string | undefined }) {
  if (!error) return null;
  return <ErrorText id={id}>{error}</ErrorText>;
}
