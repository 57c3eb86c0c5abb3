import { createElement, type ComponentProps, type ComponentPropsWithoutRef } from 'react';
import styles from './Field.module.css';

const join = (...names: (string | undefined | false)[]) => names.filter(Boolean).join(' ');

/** One form field's box: a `<div>`, or a `<fieldset>` (`as="fieldset"`) for a group of choices with a legend. */
export function Field({
  as = 'div',
  className,
  ...rest
}: { as?: 'div' | 'fieldset' } & ComponentPropsWithoutRef<'fieldset'>) {
  return createElement(as, { className: join(styles.field, className), ...rest });
}

/**
 * A field's explanation (a `<p>`, or a `<label>` when the small words name an input); `indent` lines it
 * up with a switch's or a checkbox's label.
 */
export function FieldHelp({
  as = 'p',
  indent,
  className,
  ...rest
}: { as?: 'p' | 'label'; indent?: 'switch' | 'check' | undefined } & ComponentPropsWithoutRef<'label'>) {
  return createElement(as, {
    className: join(
      styles.help,
      indent === 'switch' && styles.indentSwitch,
      indent === 'check' && styles.indentCheck,
      className,
    ),
    ...rest,
  });
}

/** What is wrong with a field's value, in words (the input points at it with aria-describedby). */
export function FieldErrorText({ className, ...rest }: ComponentProps<'p'>) {
  return <p className={join(styles.error, className)} {...rest} />;
}
