// Reports out of the page: JSON (the core's report as is), Markdown (a table for a ticket or a
// pull request) and SARIF 2.1.0 (for code-scanning tools). Formats only: the findings are the
// core's, unchanged. Downloads are blob: links clicked locally (no connection is made).

const md = (s) => String(s ?? '').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

export function reportJson(report, meta) {
  return `${JSON.stringify({ tool: 'poscheck', ...meta, ...report }, null, 2)}\n`;
}

export function reportMarkdown(report, { title, file }) {
  const d = report.diagnostics ?? [];
  const lines = [
    `# ${title}`,
    '',
    `${file ? `\`${md(file)}\`: ` : ''}${report.errorCount ?? 0} error(s), ${report.warningCount ?? 0} warning(s), ${report.infoCount ?? 0} info${report.ok ? ' — ok' : ''}`,
    '',
  ];
  if (d.length) {
    lines.push('| Severity | Rule | Line:Col | Path | Message |', '|---|---|---|---|---|');
    for (const x of d) lines.push(`| ${x.severity} | \`${md(x.ruleId)}\` | ${x.line ? `${x.line}:${x.column ?? 1}` : ''} | ${x.path ? `\`${md(x.path)}\`` : ''} | ${md(x.message)}${x.help ? ` — ${md(x.help)}` : ''} |`);
  } else lines.push('No diagnostics.');
  return `${lines.join('\n')}\n`;
}

export function reportSarif(report, { file, rules = [] }) {
  const ids = [...new Set((report.diagnostics ?? []).map((x) => x.ruleId))];
  const docs = new Map(rules.map((r) => [r.id, r.doc]));
  const level = (s) => (s === 'error' ? 'error' : s === 'warning' ? 'warning' : 'note');
  return `${JSON.stringify({
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [{
      tool: { driver: { name: 'poscheck', informationUri: 'https://github.com/', rules: ids.map((id) => ({ id, ...(docs.get(id) ? { shortDescription: { text: docs.get(id) } } : {}) })) } },
      results: (report.diagnostics ?? []).map((x) => ({
        ruleId: x.ruleId,
        ruleIndex: ids.indexOf(x.ruleId),
        level: level(x.severity),
        message: { text: x.help ? `${x.message} (${x.help})` : x.message },
        locations: [{
          physicalLocation: {
            artifactLocation: { uri: file || 'input' },
            ...(x.line ? { region: { startLine: x.line, startColumn: x.column ?? 1, ...(x.span ? { byteOffset: x.span.start, byteLength: Math.max(0, x.span.end - x.span.start) } : {}) } } : {}),
          },
          ...(x.path ? { logicalLocations: [{ fullyQualifiedName: x.path }] } : {}),
        }],
      })),
    }],
  }, null, 2)}\n`;
}

/** Saves text as a file through a local blob: link. */
export function download(name, text, type = 'application/json') {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
