import test from 'ava';
import { MongoClient } from 'mongodb';
import { mongoDatabaseName } from '../../src/compose/mongo-read-models.ts';

/** The database of a MongoDB URL, as the driver parses it: no server needed. */
test('the database comes from URLs with several hosts, SRV records, options and escapes', (t) => {
  const cases: Array<[string, string]> = [
    ['mongodb://h1:27017,h2:27017,h3:27017/watchlog?replicaSet=rs0', 'watchlog'],
    ['mongodb://user:p%40ss@h1,h2/audit_prod?replicaSet=rs0&authSource=admin', 'audit_prod'],
    ['mongodb+srv://cluster0.example.net/wl?retryWrites=true', 'wl'],
    ['mongodb://localhost:27017', 'watchlog'],
    ['mongodb://localhost:27017/', 'watchlog'],
    ['mongodb://localhost/my%2Ddb', 'my-db'],
  ];
  for (const [url, db] of cases) t.is(mongoDatabaseName(url), db, url);
});

test('the driver takes the same URLs without connecting (what start-up hands it)', (t) => {
  for (const url of ['mongodb://h1:27017,h2:27017/watchlog?replicaSet=rs0', 'mongodb://localhost']) {
    t.notThrows(() => new MongoClient(url, { serverSelectionTimeoutMS: 100 }), url);
  }
});
