import test from 'ava';
import {
  NoteError,
  openCheckpoint,
  openNote,
  parseCheckpoint,
  parseNote,
  parseVerifierKey,
} from '../../src/verify/note.ts';
import { checkpointText, newSigner } from './fixtures.ts';

/** Signed notes and checkpoints: the Go reference vector of golang.org/x/mod/sumdb/note, and
 *  notes signed here in the format of docs/auditors.md. */

const PETER = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
const PETER_TEXT =
  "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const PETER_NOTE =
  `${PETER_TEXT}\n\u2014 PeterNeumann ` +
  'x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n';

test('the Go reference note opens with its verifier key, and not once its text changes', (t) => {
  const key = parseVerifierKey(PETER);
  t.is(key.name, 'PeterNeumann');
  t.is(key.id, 0xc74f20a3);
  t.is(openNote(PETER_NOTE, [key]).text, PETER_TEXT);
  t.throws(() => openNote(PETER_NOTE.replace('cryptography', 'cryptographY'), [key]), {
    instanceOf: NoteError,
    message: /signature by PeterNeumann\+c74f20a3 does not verify/,
  });
});

test('a verifier key whose id, name, algorithm or length is wrong is refused', (t) => {
  for (const bad of [
    'PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW', // another key id
    'PeterNeumanm+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW', // another name
    'PeterNeumann+c74f20a3+AhpcrQcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW', // not Ed25519
    'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10T', // not base64 of 33 bytes
    'PeterNeumann+C74F20A3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW', // the id in capitals
    'Peter Neumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW',
    'PeterNeumann+c74f20a3',
    '',
  ])
    t.throws(() => parseVerifierKey(bad), { instanceOf: NoteError }, bad);
});

test('a checkpoint signed in the documented format opens; a key whose base64 holds "+" parses', (t) => {
  let signer = newSigner('watchlog.example');
  while (!signer.verifierKey.split('+').slice(2).join('+').includes('+')) signer = newSigner('watchlog.example');
  const key = parseVerifierKey(signer.verifierKey);
  const root = Buffer.alloc(32, 7);
  const checkpoint = openCheckpoint(signer.sign(checkpointText('watchlog.example/projects/p1', 1234, root)), [key]);
  t.is(checkpoint.origin, 'watchlog.example/projects/p1');
  t.is(checkpoint.size, 1234);
  t.deepEqual(checkpoint.root, root);
  t.deepEqual(checkpoint.signedBy, [key]);
});

test('signatures by unknown keys are ignored; a note no known key signed is refused', (t) => {
  const server = newSigner('watchlog.example');
  const witness = newSigner('witness.example');
  const key = parseVerifierKey(server.verifierKey);
  const text = checkpointText('watchlog.example/projects/p1', 5, Buffer.alloc(32, 1));
  // A cosigned note: the witness's signature line after the server's.
  const cosigned = `${server.sign(text)}${witness.sign(text).split('\n\n')[1]!}`;
  t.is(openCheckpoint(cosigned, [key]).size, 5);
  t.throws(() => openCheckpoint(witness.sign(text), [key]), {
    instanceOf: NoteError,
    message: /no signature by watchlog\.example\+[0-9a-f]{8} \(the note is signed by witness\.example\+[0-9a-f]{8}\)/,
  });
  // Another key under the same name: its key id differs, so it is another key, not a bad signature.
  const impostor = newSigner('watchlog.example');
  t.throws(() => openCheckpoint(impostor.sign(text), [key]), { message: /no signature by watchlog\.example/ });
});

test('a checkpoint whose root, size or origin was altered after signing is refused', (t) => {
  const signer = newSigner('watchlog.example');
  const key = parseVerifierKey(signer.verifierKey);
  const root = Buffer.alloc(32, 3);
  const note = signer.sign(checkpointText('watchlog.example/projects/p1', 10, root));
  const otherRoot = Buffer.alloc(32, 4).toString('base64');
  for (const altered of [
    note.replace(root.toString('base64'), otherRoot),
    note.replace('\n10\n', '\n11\n'),
    note.replace('/p1', '/p2'),
  ]) {
    t.throws(() => openCheckpoint(altered, [key]), { message: /does not verify/ });
  }
});

test('malformed notes and checkpoint bodies are refused with what is wrong', (t) => {
  const signer = newSigner('watchlog.example');
  const key = parseVerifierKey(signer.verifierKey);
  const good = signer.sign(checkpointText('o', 1, Buffer.alloc(32)));
  t.throws(() => parseNote(good.replace('\n\n', '\n')), { message: /no blank line/ });
  t.throws(() => parseNote(good.replaceAll('\n', '\r\n')), {
    message: /control character 0x0d \(Windows line ends\?\)/,
  });
  t.throws(() => parseNote(good.slice(0, -1)), { message: /must end with a newline/ });
  t.throws(() => parseNote(good.replace('\u2014 ', '- ')), { message: /not a signature line/ });
  t.throws(() => parseNote('a\n\n\u2014 k AAAA\n'), { message: /malformed signature line/ });
  t.throws(() => parseNote('a\ud800\n\n\u2014 k AAAAAAAA\n'), { message: /not valid UTF-8/ });
  t.throws(() => parseCheckpoint('o\n01\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n'), {
    message: /without leading zeros/,
  });
  t.throws(() => parseCheckpoint('o\n1\nAAAA\n'), { message: /32-byte hash/ });
  t.throws(() => parseCheckpoint('o\n1\n'), { message: /an origin, a tree size and a root hash/ });
  t.throws(() => parseCheckpoint('o\n99999999999999999\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n'), {
    message: /beyond/,
  });
  t.is(
    parseCheckpoint('o\n0\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\nextension line\n').size,
    0,
    'extension lines are allowed',
  );
  t.is(openCheckpoint(good, [key]).size, 1);
});
