import type { ComponentProps } from 'react';
import { Link } from 'react-router';
import styles from './Button.module.css';

export type ButtonTone = 'default' | 'primary' | 'danger' | 'warning' | 'ghost';
export type ButtonSize = 'normal' | 'small' | 'large';
type Look = { tone?: ButtonTone; size?: ButtonSize };

const TONE: Record<ButtonTone, string | undefined> = {
  default: undefined,
  primary: styles.primary,
  danger: styles.danger,
  warning: styles.warning,
  ghost: styles.ghost,
};
const SIZE: Record<ButtonSize, string | undefined> = { normal: undefined, small: styles.small, large: styles.large };

/** The button look's class, for an element that must stay a plain link (`<a download>`, an external `href`). */
export function buttonClass({ tone = 'default', size = 'normal' }: Look = {}, className?: string): string {
  return [styles.button, TONE[tone], SIZE[size], className].filter(Boolean).join(' ');
}

/** A `<button>`; `type` is "button" unless given (a form's submit says `type="submit"`). */
export function Button({ tone, size, className, type = 'button', ...rest }: Look & ComponentProps<'button'>) {
  return <button type={type} className={buttonClass({ tone, size }, className)} {...rest} />;
}

/** An in-app link (react-router's `Link`) that looks like a button. */
export function ButtonLink({ tone, size, className, ...rest }: Look & ComponentProps<typeof Link>) {
  return <Link className={buttonClass({ tone, size }, className)} {...rest} />;
}
