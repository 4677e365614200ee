import { exactlyOnce } from './exactly-once.ts';

exactlyOnce('fastify', 'SIGKILL');
