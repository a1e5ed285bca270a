import { rmSync } from 'node:fs';
import type { CdkTemplatesHolder } from './global-setup.js';

export default function globalTeardown(): void {
  const holder = globalThis as CdkTemplatesHolder;
  if (holder.__cdkTemplates) rmSync(holder.__cdkTemplates, { recursive: true, force: true });
  delete holder.__cdkTemplates;
}
