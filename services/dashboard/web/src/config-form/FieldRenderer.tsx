import type { Field } from '@rolelink/contracts';
import type { ReactNode } from 'react';
import type { FieldProps } from './field-props';
import { fieldIds, joinIds } from './field-props';
import { FieldShell } from './FieldShell';
import { BooleanField } from './fields/BooleanField';
import { ColorControl } from './fields/ColorControl';
import { DisplayField } from './fields/DisplayField';
import { MultiSelectField } from './fields/MultiSelectField';
import { NumberControl } from './fields/NumberControl';
import { RadioGroupField } from './fields/RadioGroupField';
import { SelectControl } from './fields/SelectControl';
import { SliderControl } from './fields/SliderControl';
import { TextareaControl, TextControl } from './fields/TextControl';

export type FieldBinding = Omit<FieldProps, 'field' | 'describedBy' | 'ariaLabel'>;

/** The bare input of a single-input field type (null for group types), for a shell or a range pair. */
export function renderControl(
  field: Field,
  binding: FieldBinding,
  describedBy: string | undefined,
  ariaLabel?: string,
): ReactNode {
  const p = { ...binding, describedBy, ariaLabel };
  switch (field.type) {
    case 'text':
    case 'url':
    case 'secret':
      return <TextControl {...p} field={field} />;
    case 'textarea':
      return <TextareaControl {...p} field={field} />;
    case 'number':
      return <NumberControl {...p} field={field} />;
    case 'select':
      return <SelectControl {...p} field={field} />;
    case 'color':
      return <ColorControl {...p} field={field} />;
    case 'slider':
      return <SliderControl {...p} field={field} />;
    default:
      return null;
  }
}

/** One field of the form, in its own frame (label, description, control, error). */
export function FieldRenderer({ field, binding }: { field: Field; binding: FieldBinding }) {
  const ids = fieldIds(binding.id);
  switch (field.type) {
    case 'display':
      return <DisplayField field={field} id={binding.id} />;
    case 'radio':
      return <RadioGroupField {...binding} field={field} describedBy={undefined} />;
    case 'multi_select':
      return <MultiSelectField {...binding} field={field} describedBy={undefined} />;
    case 'checkbox':
    case 'toggle':
      return <BooleanField {...binding} field={field} describedBy={undefined} />;
    default: {
      const describedBy = joinIds(field.description && ids.description, binding.error && ids.error);
      return (
        <FieldShell field={field} id={binding.id} error={binding.error}>
          {renderControl(field, binding, describedBy)}
        </FieldShell>
      );
    }
  }
}
