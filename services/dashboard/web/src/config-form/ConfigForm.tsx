import { validateSubmission, visibleKeys, type ConfigStructure, type Field, type FieldError } from '@rolelink/contracts';
import { useId, useMemo, useRef, useState, type FormEvent } from 'react';
import { ApiError } from '../api/client';
import { dashboardApi } from '../api/dashboard-api';
import { ErrorBanner, FieldErrorList } from '../components/ErrorState';
import { useToast } from '../components/toasts';
import type { FieldBinding } from './FieldRenderer';
import { FieldRenderer } from './FieldRenderer';
import { allFields, initialValues, rangePairs, sameValues, sectionLayout, splitErrors, submissionInput, type FormValues } from './form-model';
import { FormSection } from './FormSection';
import { RangePair } from './RangePair';

type Props = {
  guildId: string;
  roleId: string;
  structure: ConfigStructure;
  values: Record<string, unknown>;
  /** After a successful save: the page refetches GET /config (spec 4.2 rule 4). */
  onSaved: () => void;
};

type Banner = { message: string; details: FieldError[] };

/**
 * The schema-mode form (spec 2.6–2.10). Visibility and validation are the shared rules from
 * @rolelink/contracts, evaluated as values change; only visible, non-display fields with a value are sent.
 */
export function ConfigForm({ guildId, roleId, structure, values: given, onSaved }: Props) {
  const toast = useToast();
  const formId = useId();
  const initial = useMemo(() => initialValues(structure, given), [structure, given]);
  const [values, setValues] = useState<FormValues>(initial);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [collapsed, setCollapsed] = useState<boolean[]>(() => structure.sections.map((s) => s.collapsible === true && s.default_collapsed === true));
  const [banner, setBanner] = useState<Banner | null>(null);
  const [saving, setSaving] = useState(false);
  const valuesRef = useRef(values);
  valuesRef.current = values;

  const keys = useMemo(() => new Set(allFields(structure).map((f) => f.key)), [structure]);
  const visible = useMemo(() => visibleKeys(structure, submissionInput(values)), [structure, values]);
  const pairs = useMemo(() => rangePairs(structure, visible), [structure, visible]);
  const dirty = !sameValues(values, initial);

  const inputId = (key: string) => `${formId}-${key}`;

  /** The shared rules' message for one field, given the whole form (conditions may involve others). */
  function messageFor(key: string, state: FormValues): string | undefined {
    const result = validateSubmission(structure, submissionInput(state));
    return result.ok ? undefined : result.errors.find((e) => e.field === key)?.message;
  }

  function setFieldError(key: string, message: string | undefined) {
    setErrors((prev) => {
      if (prev[key] === message) return prev;
      const next = { ...prev };
      if (message === undefined) delete next[key];
      else next[key] = message;
      return next;
    });
  }

  function change(key: string, value: unknown) {
    const next = { ...valuesRef.current, [key]: value };
    valuesRef.current = next;
    setValues(next);
    // A field already marked wrong is re-checked as the admin types, so the message goes once fixed.
    if (errors[key] !== undefined) setFieldError(key, messageFor(key, next));
  }

  function blur(key: string) {
    setFieldError(key, messageFor(key, valuesRef.current));
  }

  function bind(field: Field): FieldBinding {
    return {
      id: inputId(field.key),
      value: values[field.key],
      error: errors[field.key],
      onChange: (v) => change(field.key, v),
      onBlur: () => blur(field.key),
    };
  }

  /** Opens collapsed sections holding an error and moves focus to the first invalid field. */
  function revealErrors(byField: Record<string, string>) {
    const bad = new Set(Object.keys(byField));
    setCollapsed((prev) => prev.map((c, i) => c && !structure.sections[i]?.fields.some((f) => bad.has(f.key))));
    const first = allFields(structure).find((f) => bad.has(f.key));
    if (!first) return;
    requestAnimationFrame(() => {
      const el = document.getElementById(inputId(first.key)) ?? document.getElementById(`${inputId(first.key)}-0`);
      el?.focus();
    });
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBanner(null);
    const result = validateSubmission(structure, submissionInput(values));
    if (!result.ok) {
      const { byField, other } = splitErrors(result.errors, keys);
      setErrors(byField);
      if (other.length) setBanner({ message: 'The form could not be checked.', details: other });
      revealErrors(byField);
      return;
    }
    setErrors({});
    setSaving(true);
    try {
      const saved = await dashboardApi.submitConfig(guildId, roleId, result.config);
      toast.show('success', 'Configuration saved', saved.message ?? undefined);
      onSaved();
    } catch (err) {
      if (err instanceof ApiError) {
        // Errors for fields hidden by their conditions cannot be shown beside them: the banner lists them.
        const { byField, other } = splitErrors(err.fieldErrors, visible);
        setErrors(byField);
        setBanner({ message: err.message, details: other });
        revealErrors(byField);
      } else {
        setBanner({ message: err instanceof Error ? err.message : String(err), details: [] });
      }
    } finally {
      setSaving(false);
    }
  }

  function discard() {
    valuesRef.current = initial;
    setValues(initial);
    setErrors({});
    setBanner(null);
  }

  return (
    <form className="config-form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby={`${formId}-name`}>
      <div className="config-form-header">
        <h2 id={`${formId}-name`}>{structure.name}</h2>
        {structure.description ? <p className="section-description">{structure.description}</p> : null}
      </div>

      {banner ? <ErrorBanner message={banner.message}>{banner.details.length ? <FieldErrorList errors={banner.details} /> : null}</ErrorBanner> : null}

      {structure.sections.map((section, si) => {
        const items = sectionLayout(section, visible, pairs);
        return (
          <FormSection key={si} section={section} collapsed={collapsed[si] ?? false} onToggle={() => setCollapsed((prev) => prev.map((c, i) => (i === si ? !c : c)))}>
            {items.length === 0 ? <p className="muted small">No settings apply with the current choices.</p> : null}
            {items.map((item) =>
              item.kind === 'pair' ? (
                <RangePair key={item.start.key} start={item.start} end={item.end} startBinding={bind(item.start)} endBinding={bind(item.end)} />
              ) : (
                <FieldRenderer key={item.field.key} field={item.field} binding={bind(item.field)} />
              ),
            )}
          </FormSection>
        );
      })}

      <div className="form-actions config-actions">
        <button type="submit" className="btn btn-primary" disabled={saving}>
          {saving ? 'Saving…' : 'Save configuration'}
        </button>
        <button type="button" className="btn btn-ghost" onClick={discard} disabled={!dirty || saving}>
          Discard changes
        </button>
        {dirty ? <span className="muted small">Unsaved changes</span> : null}
      </div>
    </form>
  );
}
