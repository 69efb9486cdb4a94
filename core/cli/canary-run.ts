// `tollgate canary run [code]`: every canary (or one operation's, or `operation/platform`) probed now through the
// whole gateway, one line per verdict. Exit 0 when all pass, 1 when any fails, 2 for an operation without canaries.
import { createCanaryRunner } from '../health/canary-runner.js';
import type { Services } from '../services.js';
import { type ParsedArgs, UsageError } from './args.js';
import type { Print } from './commands.js';

export async function canaryRun(s: Services, args: ParsedArgs, print: Print): Promise<number> {
  const target = args.words[2];
  const [code, platform] = target ? target.split('/') : [undefined, undefined];
  if (code !== undefined) {
    const op = s.registry.current.get(code);
    if (!op?.canary) throw new UsageError(`no canary is configured for operation "${code}"`);
    if (platform !== undefined && !op.canary.samples.some((x) => x.platform === platform))
      throw new UsageError(`operation "${code}" has no canary for platform "${platform}"`);
  }
  const reports = await createCanaryRunner(s, { retentionDays: s.settings.canaries.retentionDays }).runNow(
    code,
    platform,
  );
  if (reports.length === 0) print('no canary ran (none configured, or their operations are unavailable)');
  for (const r of reports) {
    const subject = `${r.operation}${r.platform ? `/${r.platform}` : ''}`;
    const v = r.verdict;
    const why = v.ok ? '' : ` ${v.class}${v.field ? ` field=${v.field}` : ''}: ${v.detail}`;
    print(`${subject.padEnd(22)} ${v.ok ? 'ok  ' : 'FAIL'} state=${r.state} ${r.durationMs} ms ${r.requestId}${why}`);
  }
  return reports.every((r) => r.verdict.ok) ? 0 : 1;
}
