import type { ControlProps } from '../field-props';
import { controlAria, fieldIds } from '../field-props';
import styles from './SliderControl.module.css';

/** Keys that move a range input (so pressing one "accepts" the shown value); Tab must not. */
const SLIDER_KEYS = new Set(['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End', 'PageUp', 'PageDown']);

/**
 * `input type=range` with min/max/step and the current value (plus suffix) beside it when show_value.
 * An unset slider (no value, no default) sits at min and says "not set" until it is moved or released.
 */
export function SliderControl(props: ControlProps<'slider'>) {
  const { field, id, value, onChange, onBlur } = props;
  const set = typeof value === 'number' && Number.isFinite(value);
  const current = set ? value : field.min;
  const suffix = field.suffix ? ` ${field.suffix}` : '';
  const text = set ? `${current}${suffix}` : 'not set';
  const outputId = fieldIds(id).hint;
  const showValue = field.show_value !== false;
  const claim = (el: HTMLInputElement) => {
    if (!set) onChange(Number(el.value));
  };
  return (
    <div className={`input-group ${styles.group}`}>
      <input
        id={id}
        type="range"
        min={field.min}
        max={field.max}
        step={field.step ?? 1}
        value={current}
        onChange={(e) => onChange(Number(e.target.value))}
        onPointerUp={(e) => claim(e.currentTarget)}
        onKeyUp={(e) => {
          if (SLIDER_KEYS.has(e.key)) claim(e.currentTarget);
        }}
        onBlur={onBlur}
        {...controlAria(props, showValue && outputId)}
        aria-valuetext={text}
      />
      {showValue ? (
        <output className={styles.value} id={outputId} htmlFor={id}>
          {text}
        </output>
      ) : null}
    </div>
  );
}
