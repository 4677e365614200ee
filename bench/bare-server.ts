import Koa from 'koa';
import { randomUUID } from 'node:crypto';

/** The baseline: a bare Koa endpoint that reads and parses the JSON body and answers 202,
 *  measured in the same run as watchlog so the ratio is what the benchmark reports. */
const app = new Koa();
app.use(async (ctx) => {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) chunks.push(chunk);
  JSON.parse(Buffer.concat(chunks).toString('utf8'));
  ctx.status = 202;
  ctx.body = { id: randomUUID() };
});
const server = app.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('listening\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
