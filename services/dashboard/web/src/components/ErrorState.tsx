import type { FieldError } from '@rolelink/contracts';
import type { ReactNode } from 'react';
import { ApiError } from '../api/client';
import styles from './ErrorState.module.css';
import { Button, ButtonLink } from './Button';

/** What an API failure means to the admin: 403 and 404 get their own words, everything else its message. */
export function errorTitle(error: Error): string {
  if (error instanceof ApiError) {
    if (error.status === 403) return 'You cannot manage this server';
    if (error.status === 404) return 'Not found';
  }
  return 'Something went wrong';
}

export function ErrorState({ error, onRetry }: { error: Error; onRetry?: () => void }) {
  const title = errorTitle(error);
  const detail =
    error instanceof ApiError && error.status === 403
      ? 'Only servers where the bot is present and you hold Manage Server can be managed here.'
      : error.message;
  return (
    <div className="error-state" role="alert">
      <h2>{title}</h2>
      {detail && detail !== title ? <p>{detail}</p> : null}
      <ErrorParts error={error} />
      <div className={styles.actions}>
        {onRetry ? <Button onClick={onRetry}>Try again</Button> : null}
        {/* A way out of a page one cannot use: back to the list of servers one may manage. */}
        {error instanceof ApiError && (error.status === 403 || error.status === 404) ? (
          <ButtonLink to="/">Back to your servers</ButtonLink>
        ) : null}
      </div>
    </div>
  );
}

/**
 * The parts of an error answer beyond its message (client.ts keeps them all): why a plugin call failed
 * (`detail`, on a 502), a validation error's lines (`details`) and, unless the form shows them beside its
 * fields, the per-field problems (`errors`). Nothing for an error that is not an ApiError.
 */
export function ErrorParts({ error, fieldErrors = true }: { error: Error; fieldErrors?: boolean }) {
  if (!(error instanceof ApiError)) return null;
  return (
    <>
      {error.detail ? (
        <p className={styles.detail}>
          Plugin server: <code>{error.detail}</code>
        </p>
      ) : null}
      {error.details.length > 0 ? (
        <ul>
          {error.details.map((line, i) => (
            <li key={i}>{line}</li>
          ))}
        </ul>
      ) : null}
      {fieldErrors && error.fieldErrors.length > 0 ? <FieldErrorList errors={error.fieldErrors} /> : null}
    </>
  );
}

/**
 * An error banner for failed actions: the server's message verbatim as its title, then every other part
 * of the answer (`error`), then what the page adds (`children`). `message` replaces the title.
 */
export function ErrorBanner({
  message,
  error,
  fieldErrors,
  children,
}: {
  message?: string;
  error?: Error;
  fieldErrors?: boolean;
  children?: ReactNode;
}) {
  return (
    <div className="banner banner-error" role="alert">
      <p className="banner-title">{message ?? error?.message}</p>
      {error ? <ErrorParts error={error} fieldErrors={fieldErrors} /> : null}
      {children}
    </div>
  );
}

/** Problems reported per field (by the shared validation or by the plugin), one `field: message` item each. */
export function FieldErrorList({ errors }: { errors: readonly FieldError[] }) {
  return (
    <ul>
      {errors.map((e, i) => (
        <li key={i}>
          <code>{e.field}</code>: {e.message}
        </li>
      ))}
    </ul>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className={styles.loading} role="status">
      <span className={styles.spinner} aria-hidden="true" />
      {label}
    </p>
  );
}
