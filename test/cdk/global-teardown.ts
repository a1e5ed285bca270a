import { rmSync } from 'node:fs';
import type { CdkTemplatesHolder } from './global-setup.js';

export default function globalTeardown(): void {
  const holder = globalThis as CdkTemplatesHolder;
  // A run of files that never read a shared template may end before the synth does.
  if (holder.__cdkSynth?.exitCode === null && holder.__cdkSynth.signalCode === null) holder.__cdkSynth.kill('SIGKILL');
  if (holder.__cdkTemplates) rmSync(holder.__cdkTemplates, { recursive: true, force: true });
  delete holder.__cdkTemplates;
  delete holder.__cdkSynth;
}
