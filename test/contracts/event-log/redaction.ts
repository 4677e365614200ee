import { randomUUID } from 'node:crypto';
import { RedactionUnsupportedError } from '../../../src/log/event-log.ts';
import { event, type WithLog } from './harness.ts';

export const redactionContract = (withLog: WithLog): void => {
  withLog(
    '`redacts` says whether a record can be replaced in place: where it can, the replacement keeps its place; ' +
      'where not, redact refuses and changes nothing',
    async (t, { log }) => {
      const stream = `s-${randomUUID()}`;
      await log.append(
        stream,
        [event('ProjectCreated', { secret: 'x' }), event('ProjectCreated', { other: 1 })],
        'no_stream',
      );
      const [record, next] = await log.readStream(stream);
      const redaction = {
        position: record!.position,
        type: 'RecordRedacted',
        data: { kept: true },
        metadata: record!.metadata,
      };
      if (log.redacts) {
        t.is(await log.redact([redaction]), 1);
        const [after, untouched] = await log.readStream(stream);
        t.like(after, {
          position: record!.position,
          revision: record!.revision,
          id: record!.id,
          type: 'RecordRedacted',
          data: { kept: true },
        });
        t.deepEqual(untouched, next);
      } else {
        await t.throwsAsync(log.redact([redaction]), { instanceOf: RedactionUnsupportedError });
        t.deepEqual(
          (await log.readStream(stream)).map((e) => e.data),
          [{ secret: 'x' }, { other: 1 }],
        );
      }
    },
  );
};
