import { createElement, type ComponentProps, type ComponentPropsWithoutRef } from 'react';
import styles from './Card.module.css';

type CardElement = 'div' | 'section' | 'article' | 'li' | 'form';

/** A card as the element it is (`as`, a `<div>` by default); a form card takes the form's own props. */
export function Card({ as = 'div', className, ...rest }: { as?: CardElement } & ComponentPropsWithoutRef<'form'>) {
  // createElement: the element is chosen at run time, and the form's props are a superset of the others'.
  return createElement(as, { className: className ? `${styles.card} ${className}` : styles.card, ...rest });
}

/** A card's heading, at the level the page needs (`as`, `h2` by default). */
export function CardTitle({ as = 'h2', className, ...rest }: { as?: 'h2' | 'h3' } & ComponentProps<'h2'>) {
  const Tag = as;
  return <Tag className={className ? `${styles.title} ${className}` : styles.title} {...rest} />;
}
