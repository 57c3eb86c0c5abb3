import type { Express } from 'express';
import request from 'supertest';
import { createPluginApp } from './app';
import { Registrations } from './registrations';

/** Shared by this example's tests: an app on an in-memory registry, and the lists it was asked to push. */

export const TOKEN = 'rl_' + 'a'.repeat(43);
export const OTHER_TOKEN = 'rl_' + 'b'.repeat(43);
export const PUBLIC_URL = 'https://plugin.example.test:3443';
export const DASHBOARD_ORIGINS = ['http://127.0.0.1:3001', 'http://localhost:3001'];
export const link = { guild_id: '1000', role_id: '2000' };

export function buildApp() {
  const wanted: { guildId: string; count: number }[] = [];
  const registrations = new Registrations(null);
  const app = createPluginApp({
    registrations,
    defaultCount: 5,
    log: () => undefined,
    onListWanted: (l, count) => void wanted.push({ guildId: l.guildId, count }),
    publicUrl: PUBLIC_URL,
    dashboardOrigins: DASHBOARD_ORIGINS,
  });
  return { app, registrations, wanted };
}

/** POST /register as the service does, so the plugin holds `token` for the link. */
export async function register(app: Express, token = TOKEN, body = link): Promise<void> {
  await request(app).post('/register').set('Authorization', `Token ${token}`).send(body).expect(200);
}
