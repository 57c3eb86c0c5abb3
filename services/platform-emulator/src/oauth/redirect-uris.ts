import type { EmulatorState } from '../emulator-state';

/** The platform compares the whole URI, character for character: no trailing slash, case or port is forgiven. */
export function isRegistered(state: EmulatorState, redirectUri: string): boolean {
  return state.oauthClient.redirectUris.includes(redirectUri);
}

/** The platform's page says "Invalid OAuth2 redirect_uri"; this one also says where to register it. */
export function unregistered(redirectUri: string): string {
  return `Invalid OAuth2 redirect_uri "${redirectUri}": it is not one of the application's registered redirects. Register it exactly (EMULATOR_OAUTH_REDIRECT_URIS here; the developer portal's OAuth2 → Redirects on the platform).`;
}
