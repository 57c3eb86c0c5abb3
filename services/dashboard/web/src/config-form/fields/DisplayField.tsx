import type { FieldOf } from '@rolelink/contracts';
import { InlineText } from '../../format/InlineText';
import styles from './DisplayField.module.css';
import { Field as FieldBox, FieldHelp } from '../../components/Field';

/** Read-only text from the plugin with its inline formatting; never submitted. */
export function DisplayField({ field, id }: { field: FieldOf<'display'>; id: string }) {
  return (
    <FieldBox className={styles.field} role="group" aria-labelledby={`${id}-label`}>
      <p className={styles.label} id={`${id}-label`}>
        {field.label}
      </p>
      {field.description ? <FieldHelp>{field.description}</FieldHelp> : null}
      <div className={styles.value}>
        <InlineText value={field.value} />
      </div>
    </FieldBox>
  );
}
