import type { ControlProps } from '../field-props';
import { fieldIds, joinIds } from '../field-props';
import { Field as FieldBox, FieldHelp } from '../../components/Field';
import { FieldProblem } from '../FieldShell';

/** checkbox, and toggle: the same boolean shown as a switch (`role="switch"`). */
export function BooleanField({ field, id, value, error, onChange, onBlur }: ControlProps<'checkbox' | 'toggle'>) {
  const ids = fieldIds(id);
  const isSwitch = field.type === 'toggle';
  return (
    <FieldBox>
      <div className={isSwitch ? 'switch-row' : 'choice'}>
        <input
          type="checkbox"
          id={id}
          role={isSwitch ? 'switch' : undefined}
          className={isSwitch ? 'switch' : undefined}
          checked={value === true}
          onChange={(e) => onChange(e.target.checked)}
          onBlur={onBlur}
          aria-invalid={error ? true : undefined}
          aria-describedby={joinIds(field.description && ids.description, error && ids.error)}
        />
        <label htmlFor={id}>{field.label}</label>
      </div>
      {field.description ? (
        <FieldHelp indent={isSwitch ? 'switch' : 'check'} id={ids.description}>
          {field.description}
        </FieldHelp>
      ) : null}
      <FieldProblem id={ids.error} error={error} />
    </FieldBox>
  );
}
