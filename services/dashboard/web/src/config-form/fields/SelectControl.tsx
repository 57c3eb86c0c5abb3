import type { ControlProps } from '../field-props';
import { controlAria } from '../field-props';

/** Option values may be strings or numbers; the <select> works on option indexes and maps back. */
export function SelectControl(props: ControlProps<'select'>) {
  const { field, id, value, onChange, onBlur } = props;
  const index = field.options.findIndex((o) => o.value === value);
  return (
    <select
      id={id}
      value={index === -1 ? '' : String(index)}
      onChange={(e) => {
        const option = e.target.value === '' ? undefined : field.options[Number(e.target.value)];
        onChange(option?.value);
      }}
      onBlur={onBlur}
      {...controlAria(props)}
    >
      <option value="">Select…</option>
      {field.options.map((o, i) => (
        <option key={i} value={String(i)}>
          {o.label}
        </option>
      ))}
    </select>
  );
}
