import { UsageError } from './usage-error.js';

/** Takes `--stage <name>` (or `--stage=<name>`) out of the arguments, wherever it is. */
export const extractStage = (argv: readonly string[]): { stage: string | undefined; rest: string[] } => {
  const rest: string[] = [];
  let stage: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--stage' || arg.startsWith('--stage=')) {
      if (stage !== undefined) throw new UsageError('--stage is given twice');
      stage = arg === '--stage' ? argv[++i] : arg.slice('--stage='.length);
      if (!stage || stage.startsWith('-')) throw new UsageError('--stage needs a stage name');
    } else rest.push(arg);
  }
  return { stage, rest };
};
