import { exactlyOnce } from './exactly-once.ts';

exactlyOnce('koa', 'SIGTERM');
