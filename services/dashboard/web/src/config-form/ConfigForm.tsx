import { visibleKeys, type ConfigStructure, type Field, type FieldError } from '@rolelink/contracts';
import { useMutation } from '@tanstack/react-query';
import { useId, useMemo, useState } from 'react';
import { useForm, useWatch, type FieldErrors } from 'react-hook-form';
import { ApiError } from '../api/client';
import { dashboardApi } from '../api/dashboard-api';
import { ErrorBanner, FieldErrorList } from '../components/ErrorState';
import { useToast } from '../components/toasts';
import type { FieldBinding } from './FieldRenderer';
import { FieldRenderer } from './FieldRenderer';
import {
  allFields,
  initialValues,
  rangePairs,
  sameValues,
  sectionLayout,
  splitErrors,
  submissionInput,
  type FormValues,
} from './form-model';
import { FormSection } from './FormSection';
import { RangePair } from './RangePair';
import { messageOf, otherErrors, submissionResolver } from './submission-resolver';
import panel from './config-panel.module.css';
import { Button } from '../components/Button';

type Props = {
  guildId: string;
  roleId: string;
  structure: ConfigStructure;
  values: Record<string, unknown>;
  /** After a successful save: the page refetches GET /config (spec 4.2 rule 4). */
  onSaved: () => void;
};

// `error`: the failed save's answer, whose other parts (a plugin's 502 `detail`) the banner shows too.
type Banner = { message: string; details: FieldError[]; error?: Error };

/**
 * The schema-mode form (spec 2.6–2.10). Values and errors live in react-hook-form; its resolver is the
 * shared `validateSubmission` (submission-resolver.ts), and visibility is the shared `visibleKeys`, both
 * evaluated as values change; only visible, non-display fields with a value are sent. A field is checked
 * when it loses focus and on submit; a field already marked wrong is re-checked as it changes.
 */
export function ConfigForm({ guildId, roleId, structure, values: given, onSaved }: Props) {
  const toast = useToast();
  const formId = useId();
  const initial = useMemo(() => initialValues(structure, given), [structure, given]);
  const form = useForm<FormValues, unknown, Record<string, unknown>>({
    defaultValues: initial,
    resolver: submissionResolver(structure),
    // Checks are started by hand (blur, change of a marked field) so the timing stays as described above.
    mode: 'onSubmit',
    reValidateMode: 'onSubmit',
    // The fields are controlled components, not registered refs: revealErrors() opens their section and focuses.
    shouldFocusError: false,
  });
  const { control, setValue, getFieldState, trigger, setError, reset, formState } = form;
  const values = useWatch({ control }) as FormValues;
  const errors = formState.errors;
  const [collapsed, setCollapsed] = useState<boolean[]>(() =>
    structure.sections.map((s) => s.collapsible === true && s.default_collapsed === true),
  );
  const [banner, setBanner] = useState<Banner | null>(null);
  const save = useMutation({
    mutationFn: (config: Record<string, unknown>) => dashboardApi.submitConfig(guildId, roleId, config),
  });
  const saving = save.isPending;

  const visible = useMemo(() => visibleKeys(structure, submissionInput(values)), [structure, values]);
  const pairs = useMemo(() => rangePairs(structure, visible), [structure, visible]);
  const dirty = !sameValues(values, initial);

  const inputId = (key: string) => `${formId}-${key}`;

  function bind(field: Field): FieldBinding {
    const key = field.key;
    return {
      id: inputId(key),
      value: values[key],
      error: messageOf(errors, key),
      onChange: (v) => {
        setValue(key, v, { shouldDirty: true });
        // A field already marked wrong is re-checked as the admin types, so the message goes once fixed.
        if (getFieldState(key).error) void trigger(key);
      },
      onBlur: () => void trigger(key),
    };
  }

  /** Opens collapsed sections holding an error and moves focus to the first invalid field. */
  function revealErrors(byField: FieldErrors<FormValues>) {
    const bad = new Set(Object.keys(byField).filter((k) => k !== 'root'));
    setCollapsed((prev) => prev.map((c, i) => c && !structure.sections[i]?.fields.some((f) => bad.has(f.key))));
    const first = allFields(structure).find((f) => bad.has(f.key));
    if (!first) return;
    requestAnimationFrame(() => {
      const el = document.getElementById(inputId(first.key)) ?? document.getElementById(`${inputId(first.key)}-0`);
      el?.focus();
    });
  }

  async function submitValid(config: Record<string, unknown>) {
    setBanner(null);
    try {
      const saved = await save.mutateAsync(config);
      toast.show('success', 'Configuration saved', saved.message ?? undefined);
      onSaved();
    } catch (err) {
      if (err instanceof ApiError) {
        // Errors for fields hidden by their conditions cannot be shown beside them: the banner lists them.
        const { byField, other } = splitErrors(err.fieldErrors, visible);
        for (const [key, message] of Object.entries(byField)) setError(key, { type: 'server', message });
        setBanner({ message: err.message, details: other, error: err });
        revealErrors(Object.fromEntries(Object.keys(byField).map((k) => [k, {}])));
      } else {
        setBanner({ message: err instanceof Error ? err.message : String(err), details: [] });
      }
    }
  }

  function submitInvalid(found: FieldErrors<FormValues>) {
    const other = otherErrors(found);
    setBanner(other.length ? { message: 'The form could not be checked.', details: other } : null);
    revealErrors(found);
  }

  function discard() {
    reset(initial);
    setBanner(null);
  }

  return (
    <form
      className={panel.panel}
      onSubmit={(e) => void form.handleSubmit(submitValid, submitInvalid)(e)}
      noValidate
      aria-labelledby={`${formId}-name`}
    >
      <div className={panel.header}>
        <h2 id={`${formId}-name`}>{structure.name}</h2>
        {structure.description ? <p className={panel.description}>{structure.description}</p> : null}
      </div>

      {banner ? (
        <ErrorBanner message={banner.message} error={banner.error} fieldErrors={false}>
          {banner.details.length ? <FieldErrorList errors={banner.details} /> : null}
        </ErrorBanner>
      ) : null}

      {structure.sections.map((section, si) => {
        const items = sectionLayout(section, visible, pairs);
        return (
          <FormSection
            key={si}
            section={section}
            collapsed={collapsed[si] ?? false}
            onToggle={() => setCollapsed((prev) => prev.map((c, i) => (i === si ? !c : c)))}
          >
            {items.length === 0 ? <p className="muted small">No settings apply with the current choices.</p> : null}
            {items.map((item) =>
              item.kind === 'pair' ? (
                <RangePair
                  key={item.start.key}
                  start={item.start}
                  end={item.end}
                  startBinding={bind(item.start)}
                  endBinding={bind(item.end)}
                />
              ) : (
                <FieldRenderer key={item.field.key} field={item.field} binding={bind(item.field)} />
              ),
            )}
          </FormSection>
        );
      })}

      <div className={`form-actions ${panel.actions}`}>
        <Button type="submit" tone="primary" disabled={saving}>
          {saving ? 'Saving…' : 'Save configuration'}
        </Button>
        <Button tone="ghost" onClick={discard} disabled={!dirty || saving}>
          Discard changes
        </Button>
        {dirty ? <span className="muted small">Unsaved changes</span> : null}
      </div>
    </form>
  );
}
