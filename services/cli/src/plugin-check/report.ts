/** One finding of `rolelink plugin check`: `fail` breaks the contract, `warn` is allowed but worth fixing. */
export type Finding = {
  check: string;
  result: 'pass' | 'warn' | 'fail' | 'skip';
  message: string;
  errors?: { field: string; message: string }[];
};

export type CheckReport = { plugin_url: string; ok: boolean; ui_mode: 'schema' | 'iframe' | null; findings: Finding[] };

const MARK: Record<Finding['result'], string> = { pass: 'ok', warn: 'WARN', fail: 'FAIL', skip: 'skipped' };

/**
 * The human report as the CLI prints objects (`key: value` lines): one line per check, the
 * rejections of a check indented under it by path, the verdict last.
 */
export function humanReport(report: CheckReport): Record<string, unknown> {
  const human: Record<string, unknown> = { plugin: report.plugin_url };
  for (const f of report.findings) {
    human[f.check] = `${MARK[f.result]} — ${f.message}`;
    if (f.errors?.length) human[`${f.check} problems`] = Object.fromEntries(f.errors.map((e) => [e.field, e.message]));
  }
  const failed = report.findings.filter((f) => f.result === 'fail').length;
  const warned = report.findings.filter((f) => f.result === 'warn').length;
  human.verdict = report.ok
    ? `conformant${warned ? ` (${warned} warning${warned > 1 ? 's' : ''})` : ''}`
    : `NOT conformant: ${failed} failure${failed > 1 ? 's' : ''}`;
  return human;
}
