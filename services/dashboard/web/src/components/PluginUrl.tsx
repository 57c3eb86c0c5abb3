import styles from './PluginUrl.module.css';

/**
 * A plugin URL that wraps only after its origin: "https://plugin.example.com" stays on one line (it scrolls
 * inside its box on a very narrow screen), and the path may break anywhere. Text only, never a link: the
 * URL is the plugin's to choose.
 */
export function PluginUrl({ url }: { url: string }) {
  const m = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]+)(.*)$/i.exec(url);
  const origin = m?.[1] ?? url;
  const rest = m?.[2] ?? '';
  return (
    <code className={styles.url} title={url}>
      <span className={styles.origin} data-testid="url-origin">
        {origin}
      </span>
      {rest ? (
        <>
          <wbr />
          {rest}
        </>
      ) : null}
    </code>
  );
}
