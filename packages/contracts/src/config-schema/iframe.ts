import { z } from 'zod';
import { CONFIG_LIMITS as L } from './limits';

export type EmbedUrlCheck = {
  /**
   * True when the URL's host is private or internal (spec 2.11). Injected because the address rules
   * live in @rolelink/domain (which depends on this package); the broker passes `normalizePluginUrl`.
   */
  isForbiddenHost?: (url: URL) => boolean;
};

function embedUrl(check: EmbedUrlCheck) {
  return z
    .string()
    .max(L.embedUrlMax)
    .superRefine((raw, ctx) => {
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be a valid URL' });
        return;
      }
      if (url.protocol !== 'https:') ctx.addIssue({ code: 'custom', message: 'must use HTTPS' });
      else if (url.username || url.password) ctx.addIssue({ code: 'custom', message: 'must not contain credentials' });
      else if (check.isForbiddenHost?.(url))
        ctx.addIssue({ code: 'custom', message: 'must not point to a private or internal host' });
    });
}

/** Spec 2.11. */
export function iframeResponseSchema(check: EmbedUrlCheck = {}) {
  return z.object({
    version: z.literal(1, 'must be 1'),
    ui_mode: z.literal('iframe'),
    name: z.string().min(1, 'is required').max(L.nameMax),
    description: z.string().max(L.descriptionMax).optional(),
    embed_url: embedUrl(check),
  });
}
export type IframeResponse = z.infer<ReturnType<typeof iframeResponseSchema>>;
