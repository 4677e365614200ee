import test from 'ava';
import { emptyQuery, exportParams, instantOf, listParams, searchText } from '../src/query.ts';

test('an empty query asks for the newest page and nothing else', (t) => {
  t.is(listParams(emptyQuery(25)).toString(), 'page=1&limit=25&sort_by=timestamp&sort_order=desc');
  t.is(exportParams(emptyQuery(25)).toString(), 'format=csv');
});

test('the status class joins the search text as a status: term; blank text is left out', (t) => {
  t.is(searchText({ ...emptyQuery(10), q: '  jane@  ', status: '5xx' }), 'jane@ status:5xx');
  t.is(searchText({ ...emptyQuery(10), q: '   ' }), '');
  t.is(searchText({ ...emptyQuery(10), status: '4xx' }), 'status:4xx');
});

test('filters go to both endpoints alike; only the list pages', (t) => {
  const query = { ...emptyQuery(50), q: 'path:/orders* -"card declined"', method: 'DELETE' as const, page: 3 };
  const list = listParams(query);
  const exported = exportParams(query);
  for (const params of [list, exported]) {
    t.is(params.get('q'), 'path:/orders* -"card declined"');
    t.is(params.get('method'), 'DELETE');
  }
  t.is(list.get('page'), '3');
  t.is(list.get('limit'), '50');
  t.false(exported.has('page'));
  t.false(exported.has('limit'));
});

test('datetime-local bounds become instants; "to" takes its whole minute; junk is no bound', (t) => {
  const from = instantOf('2026-03-01T10:30');
  t.is(from, new Date('2026-03-01T10:30').toISOString());
  const to = instantOf('2026-03-01T10:30', true);
  t.is(to, new Date(new Date('2026-03-01T10:30').getTime() + 59_999).toISOString());
  t.is(instantOf('2026-03-01T10:30:15', true), new Date('2026-03-01T10:30:15').toISOString());
  t.is(instantOf(''), null);
  t.is(instantOf('not a date'), null);
  const query = { ...emptyQuery(10), from: '2026-03-01T10:30', to: 'nonsense' };
  t.is(listParams(query).get('start_date'), from);
  t.false(listParams(query).has('end_date'));
});
