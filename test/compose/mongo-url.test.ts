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

test('the driver takes the same URLs without connecting, and reads the hosts, replica set and database we do', (t) => {
  const cases: Array<[string, string[], string | undefined]> = [
    ['mongodb://h1:27017,h2:27017/watchlog?replicaSet=rs0', ['h1:27017', 'h2:27017'], 'rs0'],
    ['mongodb://user:p%40ss@h1,h2/audit_prod?replicaSet=rs0&authSource=admin', ['h1:27017', 'h2:27017'], 'rs0'],
    ['mongodb://localhost/my%2Ddb', ['localhost:27017'], undefined],
  ];
  for (const [url, hosts, replicaSet] of cases) {
    const { options } = new MongoClient(url, { serverSelectionTimeoutMS: 100 });
    t.deepEqual(options.hosts.map(String), hosts, url);
    t.is(options.replicaSet as string | undefined, replicaSet, url);
    t.is(options.dbName, mongoDatabaseName(url), url);
    t.is(options.serverSelectionTimeoutMS, 100, url);
  }
  // Without a database in the URL, the driver's default is not ours: start-up names it (client.db).
  const bare = new MongoClient('mongodb://localhost', { serverSelectionTimeoutMS: 100 });
  t.deepEqual(bare.options.hosts.map(String), ['localhost:27017']);
  t.is(mongoDatabaseName('mongodb://localhost'), 'watchlog');
});
