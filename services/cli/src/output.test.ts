import { formatHuman } from './output';

describe('formatHuman', () => {
  it('prints a list of records one item per line, nested fields below it, instead of [object Object]', () => {
    const text = formatHuman({
      count: 2,
      sample: [
        { user_id: '100000000000000001', name: 'ana' },
        { user_id: '100000000000000002', name: null },
      ],
      entries: [
        {
          id: '7',
          action: 'link_deleted',
          actor: { name: 'demo_owner', via: 'dashboard' },
          detail: { fields: ['a', 'b'] },
        },
      ],
      tags: ['x', 'y'],
    });
    expect(text).not.toContain('[object Object]');
    expect(text.split('\n')).toEqual([
      'count: 2',
      'sample:',
      '  - user_id: 100000000000000001, name: ana',
      '  - user_id: 100000000000000002, name: -',
      'entries:',
      '  - id: 7, action: link_deleted',
      '    actor:',
      '      name: demo_owner',
      '      via: dashboard',
      '    detail:',
      '      fields: a, b',
      'tags: x, y',
    ]);
  });
});
