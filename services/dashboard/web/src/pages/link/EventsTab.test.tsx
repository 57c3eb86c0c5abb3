import type { LinkEventLog } from '@rolelink/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fakeApi, linkCard, renderTab } from '../../../test/render';
import { EventsTab } from './EventsTab';

const G = '100000000000000001';
const R = '200000000000000001';
const eventsPath = `/dashboard-api/guilds/${G}/links/${R}/events`;
const context = { guildId: G, roleId: R, card: linkCard(), guild: undefined, owner: true, roleName: 'Members' };

// GET …/links/:roleId/events: newest first, a dropped event (its retries all refused) and a delivered one.
const log: LinkEventLog = {
  link_id: 'link-1',
  kinds: ['member.expired', 'removal.held'],
  events: [
    {
      id: 'ev-2',
      seq: 2,
      kind: 'removal.held',
      created_at: '2026-11-26T12:00:00.000Z',
      state: 'dropped',
      attempt_count: 2,
      next_attempt_at: null,
      attempts: [
        { at: '2026-11-26T12:00:01.000Z', http_status: 500, error: 'Internal Server Error', latency_ms: 1200 },
        { at: '2026-11-26T12:05:00.000Z', http_status: null, error: 'connect ECONNREFUSED', latency_ms: null },
      ],
    },
    {
      id: 'ev-1',
      seq: 1,
      kind: 'member.expired',
      created_at: '2026-11-26T11:00:00.000Z',
      state: 'delivered',
      attempt_count: 1,
      next_attempt_at: null,
      attempts: [{ at: '2026-11-26T11:00:01.000Z', http_status: 204, error: null, latency_ms: 35 }],
    },
  ],
};

describe('EventsTab', () => {
  it('lists each event with its state and every attempt in words; Resend queues it again and says so', async () => {
    const api = fakeApi();
    api.on('GET', eventsPath, () => ({ status: 200, body: log }));
    api.on('POST', `${eventsPath}/ev-2/resend`, () => ({ status: 200, body: { id: 'ev-2', state: 'pending' } }));
    const user = userEvent.setup();
    renderTab(<EventsTab />, context);
    expect(await screen.findByRole('heading', { level: 2, name: 'Event deliveries' })).toBeInTheDocument();
    expect(screen.getByText(/Subscribed to: member\.expired, removal\.held\./)).toBeInTheDocument();

    const dropped = screen.getByRole('row', { name: 'Event 2 removal.held' });
    expect(within(dropped).getByText('Dropped')).toBeInTheDocument();
    const attempts = within(dropped).getAllByRole('listitem');
    expect(attempts[0]).toHaveTextContent(/HTTP 500 \(Internal Server Error\) in 1,200 ms$/);
    expect(attempts[1]).toHaveTextContent(/connect ECONNREFUSED$/);
    const delivered = screen.getByRole('row', { name: 'Event 1 member.expired' });
    expect(within(delivered).getByText('Delivered')).toBeInTheDocument();
    expect(within(delivered).getByRole('listitem')).toHaveTextContent(/HTTP 204 in 35 ms$/);

    // After the resend, the log is read again and shows the event pending, without a Resend button.
    api.on('GET', eventsPath, () => ({
      status: 200,
      body: {
        ...log,
        events: [{ ...log.events[0]!, state: 'pending', next_attempt_at: '2026-11-26T12:10:00.000Z' }, log.events[1]!],
      },
    }));
    await user.click(within(dropped).getByRole('button', { name: 'Resend event 2' }));
    expect(await screen.findByText('Event ev-2 queued for delivery again')).toBeInTheDocument();
    await waitFor(() =>
      expect(
        within(screen.getByRole('row', { name: 'Event 2 removal.held' })).getByText('Pending'),
      ).toBeInTheDocument(),
    );
    expect(screen.queryByRole('button', { name: 'Resend event 2' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Resend event 1' })).toBeInTheDocument();
    expect(api.calls.filter((c) => c.method === 'POST').map((c) => c.path)).toEqual([`${eventsPath}/ev-2/resend`]);
  });

  it('says a refused resend was not sent, with the reason', async () => {
    const api = fakeApi();
    api.on('GET', eventsPath, () => ({ status: 200, body: log }));
    api.on('POST', `${eventsPath}/ev-1/resend`, () => ({
      status: 409,
      body: { statusCode: 409, message: 'The link is disabled' },
    }));
    const user = userEvent.setup();
    renderTab(<EventsTab />, context);
    await user.click(await screen.findByRole('button', { name: 'Resend event 1' }));
    expect(await screen.findByText('The event was not re-sent')).toBeInTheDocument();
    expect(screen.getByText('The link is disabled')).toBeInTheDocument();
  });

  it('explains that a plugin without event kinds gets no events', async () => {
    const api = fakeApi();
    api.on('GET', eventsPath, () => ({ status: 200, body: { link_id: 'link-1', kinds: [], events: [] } }));
    renderTab(<EventsTab />, context);
    expect(await screen.findByText(/The plugin has not opted in to events/)).toBeInTheDocument();
    expect(screen.queryByRole('table')).toBeNull();
    expect(screen.queryByText('No events yet.')).toBeNull();
  });

  it('shows the error with "Try again", which loads the log', async () => {
    const api = fakeApi();
    api.on('GET', eventsPath, () => ({ status: 500, body: { statusCode: 500, message: 'Internal server error' } }));
    const user = userEvent.setup();
    renderTab(<EventsTab />, context);
    expect(await screen.findByRole('alert')).toHaveTextContent('Internal server error');
    api.on('GET', eventsPath, () => ({ status: 200, body: log }));
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('row', { name: 'Event 1 member.expired' })).toBeInTheDocument();
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
