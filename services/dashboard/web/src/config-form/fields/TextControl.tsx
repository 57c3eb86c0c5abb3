import { useState } from 'react';
import type { ControlProps } from '../field-props';
import { controlAria } from '../field-props';
import { Button } from '../../components/Button';

/** text, url and secret (masked, with a show/hide toggle): one line of text. */
export function TextControl(props: ControlProps<'text' | 'url' | 'secret'>) {
  const { field, id, value, onChange, onBlur, ariaLabel } = props;
  const [revealed, setRevealed] = useState(false);
  const text = typeof value === 'string' ? value : '';
  const type = field.type === 'secret' ? (revealed ? 'text' : 'password') : field.type === 'url' ? 'url' : 'text';
  const input = (
    <input
      id={id}
      type={type}
      value={text}
      placeholder={field.placeholder}
      onChange={(e) => onChange(e.target.value)}
      onBlur={onBlur}
      {...controlAria(props)}
      inputMode={field.type === 'url' ? 'url' : undefined}
      autoComplete={field.type === 'secret' ? 'off' : undefined}
      spellCheck={field.type === 'text' ? undefined : false}
    />
  );
  if (field.type !== 'secret') return input;
  const name = ariaLabel ?? field.label;
  return (
    <div className="input-group">
      {input}
      <Button
        size="small"
        aria-controls={id}
        aria-label={`${revealed ? 'Hide' : 'Show'} ${name}`}
        onClick={() => setRevealed((r) => !r)}
      >
        {revealed ? 'Hide' : 'Show'}
      </Button>
    </div>
  );
}

export function TextareaControl(props: ControlProps<'textarea'>) {
  const { field, id, value, onChange, onBlur } = props;
  return (
    <textarea
      id={id}
      rows={field.rows ?? 4}
      value={typeof value === 'string' ? value : ''}
      placeholder={field.placeholder}
      onChange={(e) => onChange(e.target.value)}
      onBlur={onBlur}
      {...controlAria(props)}
    />
  );
}
