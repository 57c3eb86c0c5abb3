import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import styles from './ScrollTable.module.css';

/**
 * Every wide table's box (plugin status, events, audit, a member's history, a health report). Its columns
 * stay whole; where they do not fit (a phone) the box scrolls sideways, never the page, and shows it: a
 * shadow on each edge with more beyond it, and "Scroll sideways for more columns" above. The box is a
 * focusable, named region, so the keyboard can scroll it too.
 */
export function ScrollTable({ label, children }: { label: string; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  const hintId = useId();
  const [more, setMore] = useState({ left: false, right: false });
  useEffect(() => {
    const box = ref.current;
    if (!box) return;
    const measure = () => {
      const left = box.scrollLeft > 1;
      const right = box.scrollLeft + box.clientWidth < box.scrollWidth - 1;
      setMore((m) => (m.left === left && m.right === right ? m : { left, right }));
    };
    box.addEventListener('scroll', measure, { passive: true });
    // The observer's first call measures the box as laid out; later ones follow a turned phone or new rows.
    const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(measure);
    observer?.observe(box);
    if (box.firstElementChild) observer?.observe(box.firstElementChild);
    return () => {
      box.removeEventListener('scroll', measure);
      observer?.disconnect();
    };
  }, []);
  const scrolls = more.left || more.right;
  return (
    <div>
      {scrolls ? (
        <p className={styles.hint} id={hintId}>
          Scroll sideways for more columns →
        </p>
      ) : null}
      <div className={styles.frame} data-more-left={more.left || undefined} data-more-right={more.right || undefined}>
        <div
          ref={ref}
          className={styles.scroller}
          role="region"
          aria-label={label}
          aria-describedby={scrolls ? hintId : undefined}
          // eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex -- a scrolling region must take focus to be scrolled by keyboard (WCAG 2.1.1)
          tabIndex={0}
        >
          {children}
        </div>
      </div>
    </div>
  );
}
