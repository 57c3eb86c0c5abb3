import type { Section } from '@rolelink/contracts';
import { useId, type ReactNode } from 'react';
import panel from './config-panel.module.css';
import styles from './FormSection.module.css';

type Props = { section: Section; collapsed: boolean; onToggle: () => void; children: ReactNode };

/**
 * A section of the form. A collapsible one has its title as a disclosure button (aria-expanded); its
 * fields stay mounted while collapsed so their values are kept.
 */
export function FormSection({ section, collapsed, onToggle, children }: Props) {
  const id = useId();
  const bodyId = `${id}-body`;
  const collapsible = section.collapsible === true;
  return (
    <section className={styles.section} aria-labelledby={`${id}-title`}>
      <h3 className={styles.title} id={`${id}-title`}>
        {collapsible ? (
          <button
            type="button"
            className={styles.disclosure}
            aria-expanded={!collapsed}
            aria-controls={bodyId}
            onClick={onToggle}
          >
            <span className={styles.icon} aria-hidden="true" />
            {section.title}
          </button>
        ) : (
          section.title
        )}
      </h3>
      <div id={bodyId} hidden={collapsible && collapsed}>
        {section.description ? <p className={panel.description}>{section.description}</p> : null}
        {children}
      </div>
    </section>
  );
}
