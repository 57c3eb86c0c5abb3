import type { ControlProps } from '../field-props';
import { controlAria, fieldIds } from '../field-props';

/**
 * A number with an optional unit suffix after the input. Empty means unset; text the browser cannot read
 * as a number becomes NaN, which the shared validation reports as "must be a number".
 */
export function NumberControl(props: ControlProps<'number'>) {
  const { field, id, value, onChange, onBlur } = props;
  const shown = typeof value === 'number' && Number.isFinite(value) ? String(value) : '';
  const suffixId = fieldIds(id).hint;
  return (
    <div className="input-group">
      <input
        id={id}
        type="number"
        inputMode="decimal"
        value={shown}
        step={field.step ?? 'any'}
        min={field.validation?.min}
        max={field.validation?.max}
        onChange={(e) => {
          const el = e.target;
          if (el.validity.badInput) onChange(Number.NaN);
          else if (el.value === '') onChange(undefined);
          else onChange(el.valueAsNumber);
        }}
        onBlur={onBlur}
        {...controlAria(props, field.suffix && suffixId)}
      />
      {field.suffix ? (
        <span className="suffix" id={suffixId}>
          {field.suffix}
        </span>
      ) : null}
    </div>
  );
}
