import type { FieldOf } from '@rolelink/contracts';
import { InlineText } from '../../format/InlineText';

/** Read-only text from the plugin with its inline formatting; never submitted. */
export function DisplayField({ field, id }: { field: FieldOf<'display'>; id: string }) {
  return (
    <div className="field display-field" role="group" aria-labelledby={`${id}-label`}>
      <p className="display-label" id={`${id}-label`}>
        {field.label}
      </p>
      {field.description ? <p className="field-help">{field.description}</p> : null}
      <div className="display-value">
        <InlineText value={field.value} />
      </div>
    </div>
  );
}
