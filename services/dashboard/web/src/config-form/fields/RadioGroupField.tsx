import type { ControlProps } from '../field-props';
import { FieldGroup } from '../FieldShell';

/** One choice out of the options, as a fieldset of radios (values may be strings or numbers). */
export function RadioGroupField({ field, id, value, error, onChange, onBlur }: ControlProps<'radio'>) {
  return (
    <FieldGroup field={field} id={id} error={error}>
      {field.options.map((o, i) => (
        <div className="choice" key={i}>
          <input
            type="radio"
            id={`${id}-${i}`}
            name={id}
            checked={o.value === value}
            onChange={() => onChange(o.value)}
            onBlur={onBlur}
          />
          <label htmlFor={`${id}-${i}`}>{o.label}</label>
        </div>
      ))}
    </FieldGroup>
  );
}
