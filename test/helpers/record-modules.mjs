// node --import this file: records the modules the process imports (module-log-hooks.mjs).
import { register } from 'node:module';

register('./module-log-hooks.mjs', import.meta.url);
