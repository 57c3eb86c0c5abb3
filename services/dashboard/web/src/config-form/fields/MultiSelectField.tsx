import type { ControlProps } from '../field-props';
import { fieldIds } from '../field-props';
import { FieldGroup } from '../FieldShell';
import styles from './MultiSelectField.module.css';
import { FieldHelp } from '../../components/Field';

/**
 * Several options as a checkbox group. Once max_selections are chosen the others are disabled and the
 * hint says so; the submitted value is the array of chosen option values, in option order.
 */
export function MultiSelectField({ field, id, value, error, onChange, onBlur }: ControlProps<'multi_select'>) {
  const chosen: unknown[] = Array.isArray(value) ? value : [];
  const max = field.max_selections;
  const full = max !== undefined && chosen.length >= max;

  function toggle(optionValue: string | number, on: boolean) {
    const next = on ? [...chosen, optionValue] : chosen.filter((v) => v !== optionValue);
    onChange(field.options.map((o) => o.value).filter((v) => next.includes(v)));
  }

  const hint =
    max !== undefined ? (
      <FieldHelp className={full ? styles.limit : undefined} id={fieldIds(id).hint} aria-live="polite">
        {full
          ? `Maximum reached: you can choose at most ${max}. Unselect one to choose another.`
          : `Choose up to ${max}.`}
      </FieldHelp>
    ) : null;

  return (
    <FieldGroup field={field} id={id} error={error} hint={hint}>
      {field.options.map((o, i) => {
        const on = chosen.includes(o.value);
        return (
          <div className="choice" key={i}>
            <input
              type="checkbox"
              id={`${id}-${i}`}
              checked={on}
              disabled={!on && full}
              onChange={(e) => toggle(o.value, e.target.checked)}
              onBlur={onBlur}
            />
            <label htmlFor={`${id}-${i}`}>{o.label}</label>
          </div>
        );
      })}
    </FieldGroup>
  );
}
