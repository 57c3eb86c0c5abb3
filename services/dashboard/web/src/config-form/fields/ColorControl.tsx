import { COLOR_PATTERN } from '@rolelink/contracts';
import type { ControlProps } from '../field-props';
import { controlAria } from '../field-props';
import styles from './ColorControl.module.css';

/**
 * A colour picker and a hex text input showing the same value. The text may be mid-edit (invalid);
 * the picker then keeps the last valid colour, and validation reports the text.
 */
export function ColorControl(props: ControlProps<'color'>) {
  const { field, id, value, error, onChange, onBlur, describedBy, ariaLabel } = props;
  const text = typeof value === 'string' ? value : '';
  const valid = COLOR_PATTERN.test(text);
  const name = ariaLabel ?? field.label;
  return (
    <div className={`input-group ${styles.group}`}>
      <input
        id={id}
        type="color"
        className={styles.picker}
        value={valid ? text.toLowerCase() : '#000000'}
        onChange={(e) => onChange(e.target.value)}
        onBlur={onBlur}
        {...controlAria(props)}
      />
      <label className="visually-hidden" htmlFor={`${id}-hex`}>
        {`${name} (hex)`}
      </label>
      <input
        id={`${id}-hex`}
        type="text"
        className={styles.hex}
        value={text}
        placeholder="#rrggbb"
        maxLength={7}
        spellCheck={false}
        autoComplete="off"
        onChange={(e) => onChange(e.target.value.trim())}
        onBlur={onBlur}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
      />
    </div>
  );
}
