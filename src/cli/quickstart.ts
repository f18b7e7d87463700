// The README's quickstart as commands, so the end-to-end suite can run them as written (server-side
// dry runs against its API server, e2e scenario 30) and a unit test can check what is extracted:
// the page cannot drift from what the API server admits without a test failing.

/** The README section of the quickstart (its `## ` heading). */
export const QUICKSTART_HEADING = 'Quickstart: a compute cloud in your cluster';

/** The text of a `## ` section of a markdown text, heading excluded, up to the next `## ` heading outside a code block. */
export function markdownSection(markdown: string, heading: string): string {
  const lines = markdown.split('\n');
  const start = lines.indexOf(`## ${heading}`);
  if (start < 0) throw new Error(`no section "## ${heading}"`);
  let fenced = false;
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line.startsWith('```')) fenced = !fenced;
    if (!fenced && line.startsWith('## ')) return lines.slice(start + 1, i).join('\n');
  }
  return lines.slice(start + 1).join('\n');
}

/**
 * The commands of the ```sh blocks of a markdown text, in order, one entry per command: a line
 * continued with a trailing backslash joins the next, a heredoc (`<<'WORD'` or `<<WORD`) keeps its
 * lines up to WORD, and blank lines and `#` comment lines are left out.
 */
export function shellCommands(markdown: string): string[] {
  const commands: string[] = [];
  const lines = markdown.split('\n');
  let inBlock = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (!inBlock) {
      if (line === '```sh') inBlock = true;
      continue;
    }
    if (line === '```') {
      inBlock = false;
      continue;
    }
    if (line.trim() === '' || line.trim().startsWith('#')) continue;
    let command = line;
    while (command.endsWith('\\') && i + 1 < lines.length) command = `${command.slice(0, -1).trimEnd()} ${(lines[++i] ?? '').trim()}`;
    const heredoc = /<<-?'?(\w+)'?\s*$/.exec(command);
    if (heredoc) {
      const end = heredoc[1];
      const body: string[] = [];
      while (i + 1 < lines.length && lines[i + 1] !== end) body.push(lines[++i] ?? '');
      i++;
      command = [command, ...body, end].join('\n');
    }
    commands.push(command);
  }
  return commands;
}

const KUBECTL_APPLY = 'kubectl apply ';
const HELM_INSTALL = 'helm install ';

/**
 * What the end-to-end suite runs of the quickstart, as written but changing nothing: every
 * `kubectl apply` with `--dry-run=server`, and the `helm install` as `helm template` with the same
 * arguments piped to such an apply. The operators' installs (public URLs and registries), the
 * namespace and Secret creations, `bao` and the waits are not run.
 */
export function quickstartDryRuns(readme: string): string[] {
  const runs: string[] = [];
  for (const command of shellCommands(markdownSection(readme, QUICKSTART_HEADING))) {
    if (command.startsWith(KUBECTL_APPLY)) runs.push(`kubectl apply --dry-run=server ${command.slice(KUBECTL_APPLY.length)}`);
    else if (command.startsWith(HELM_INSTALL)) runs.push(`helm template ${command.slice(HELM_INSTALL.length)} | kubectl apply --dry-run=server -f -`);
  }
  return runs;
}
