import type { Field } from '@rolelink/contracts';
import { fieldIds, joinIds } from './field-props';
import type { FieldBinding } from './FieldRenderer';
import { renderControl } from './FieldRenderer';
import { Field as FieldBox } from '../components/Field';
import { FieldDescription, FieldLabel, FieldProblem } from './FieldShell';
import styles from './RangePair.module.css';

/**
 * Spec 2.9: a start field and the field that pairs with it, inline as `<start> to <end>`. The end's
 * label and description are hidden; its input keeps an accessible name, "<start label> (end)".
 */
export function RangePair({
  start,
  end,
  startBinding,
  endBinding,
}: {
  start: Field;
  end: Field;
  startBinding: FieldBinding;
  endBinding: FieldBinding;
}) {
  const s = fieldIds(startBinding.id);
  const e = fieldIds(endBinding.id);
  return (
    <FieldBox>
      <FieldLabel field={start} htmlFor={startBinding.id} />
      <FieldDescription id={s.description} text={start.description} />
      <div className={styles.row}>
        {renderControl(start, startBinding, joinIds(startBinding.error && s.error, start.description && s.description))}
        <span className={styles.to} aria-hidden="true">
          to
        </span>
        {renderControl(end, endBinding, joinIds(endBinding.error && e.error), `${start.label} (end)`)}
      </div>
      <FieldProblem id={s.error} error={startBinding.error} />
      <FieldProblem id={e.error} error={endBinding.error} />
    </FieldBox>
  );
}
