import { useMemo, type ReactNode } from 'react';
import { parseInlineFormat, type InlineNode } from './inline-format';

function render(nodes: readonly InlineNode[]): ReactNode[] {
  return nodes.map((node, i) => {
    switch (node.kind) {
      case 'text':
        return node.text;
      case 'break':
        return <br key={i} />;
      case 'bold':
        return <strong key={i}>{render(node.children)}</strong>;
      case 'italic':
        return <em key={i}>{render(node.children)}</em>;
      case 'code':
        return <code key={i}>{node.text}</code>;
      case 'link':
        // href is an absolute http(s) URL (safeHref); a new tab without access to this window.
        return (
          <a key={i} href={node.href} target="_blank" rel="noopener noreferrer">
            {render(node.children)}
          </a>
        );
    }
  });
}

/** A plugin's display text with its inline formatting (spec 2.8), rendered as elements, never as HTML. */
export function InlineText({ value }: { value: string }) {
  const nodes = useMemo(() => parseInlineFormat(value), [value]);
  return <>{render(nodes)}</>;
}
