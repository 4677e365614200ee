import { exactlyOnce } from './exactly-once.ts';

exactlyOnce('express', 'SIGKILL');
