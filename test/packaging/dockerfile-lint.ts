// A small Dockerfile linter for the rules this project's image must keep: hadolint's where one exists (DLxxxx ids),
// ours (TGxxx) for the rest. Images cannot be pulled or built on the test machines, so these static checks are
// what the tests can run. Parses line continuations, comments, stages (FROM ... AS name) and global ARG defaults.

export interface Instruction {
  line: number;
  keyword: string;
  args: string;
  stage: number;
}

export interface Stage {
  image: string;
  name: string | null;
  instructions: Instruction[];
}

export interface Finding {
  rule: string;
  line: number;
  message: string;
}

export function parseDockerfile(text: string): { args: Record<string, string>; stages: Stage[] } {
  const args: Record<string, string> = {};
  const stages: Stage[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const start = i + 1;
    if (/^\s*(#|$)/.test(lines[i])) continue;
    let logical = lines[i];
    // A trailing backslash continues the instruction; comment lines inside a continuation are dropped.
    while (/\\\s*$/.test(logical) && i + 1 < lines.length) {
      logical = logical.replace(/\\\s*$/, ' ');
      i++;
      if (!/^\s*#/.test(lines[i])) logical += lines[i];
    }
    const m = /^\s*([A-Za-z]+)\s*(.*)$/.exec(logical);
    if (!m) continue;
    const keyword = m[1].toUpperCase();
    const rest = m[2].trim();
    if (keyword === 'FROM') {
      const fm = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest);
      const image = (fm?.[1] ?? rest).replace(/\$\{?(\w+)\}?/g, (_, name: string) => args[name] ?? '');
      stages.push({ image, name: fm?.[2] ?? null, instructions: [] });
    } else if (keyword === 'ARG' && stages.length === 0) {
      const [name, value] = rest.split('=', 2);
      args[name] = value ?? '';
    }
    const stage = stages.length - 1;
    if (stage >= 0) stages[stage].instructions.push({ line: start, keyword, args: rest, stage });
  }
  return { args, stages };
}

function isJsonArray(s: string): boolean {
  try {
    return Array.isArray(JSON.parse(s));
  } catch {
    return false;
  }
}

const COMPILERS = /(^|\s)(g\+\+|gcc|make|python3|build-essential)(\s|$)/;

export function lintDockerfile(text: string): Finding[] {
  const { stages } = parseDockerfile(text);
  const out: Finding[] = [];
  const add = (rule: string, line: number, message: string) => out.push({ rule, line, message });
  if (stages.length < 2) add('TG001', 1, 'multi-stage build expected: a builder stage and a runtime stage');
  const names = new Set(stages.map((s) => s.name).filter(Boolean));
  for (const [n, stage] of stages.entries()) {
    const from = stage.instructions[0];
    const image = stage.image;
    if (!names.has(image)) {
      const tag = /^[^@]+:([^/@]+)$/.exec(image)?.[1];
      if (!tag && !image.includes('@sha256:'))
        add('DL3006', from.line, `always tag the image explicitly: ${image || '(empty)'}`);
      else if (tag === 'latest') add('DL3007', from.line, 'using latest is prone to errors; pin a version');
      else if (tag && !/^\d+\.\d+\.\d+/.test(tag))
        add('TG002', from.line, `pin the base image to a patch version, not ${tag}`);
    }
    for (const ins of stage.instructions) {
      if (ins.keyword === 'RUN') {
        if (/apt-get\s+(-\S+\s+)*install/.test(ins.args)) {
          if (!/(\s-y\b|\s--yes\b|\s-qq?y\b)/.test(ins.args))
            add('DL3014', ins.line, 'use the -y switch to avoid manual input: apt-get -y install');
          if (!/--no-install-recommends/.test(ins.args))
            add('DL3015', ins.line, 'avoid additional packages by specifying --no-install-recommends');
        }
        if (/apt-get\s+update/.test(ins.args) && !/rm -rf \/var\/lib\/apt\/lists/.test(ins.args))
          add('DL3009', ins.line, 'delete the apt-get lists after installing something');
        if (/(^|&&|;)\s*cd\s/.test(ins.args)) add('DL3003', ins.line, 'use WORKDIR to switch to a directory');
        if (/\bnpm\s+install\b/.test(ins.args)) add('TG003', ins.line, 'use npm ci: it installs exactly the lock file');
        if (/\bsudo\b/.test(ins.args)) add('DL3004', ins.line, 'do not use sudo');
      }
      if (ins.keyword === 'ADD' && !/^(--\S+\s+)*(https?:|\S+\.tar)/.test(ins.args))
        add('DL3020', ins.line, 'use COPY instead of ADD for files and folders');
      if ((ins.keyword === 'CMD' || ins.keyword === 'ENTRYPOINT') && !isJsonArray(ins.args))
        add('DL3025', ins.line, `use arguments JSON notation for ${ins.keyword}`);
      if (ins.keyword === 'WORKDIR' && !ins.args.startsWith('/')) add('DL3000', ins.line, 'use absolute WORKDIR');
      if (ins.keyword === 'MAINTAINER') add('DL4000', ins.line, 'MAINTAINER is deprecated');
    }
    if (n < stages.length - 1) continue;
    // The runtime stage.
    const users = stage.instructions.filter((i) => i.keyword === 'USER');
    const user = users.at(-1)?.args;
    if (!user) add('TG004', from.line, 'the runtime stage must switch to a non-root USER');
    else if (/^(root|0)(:|$)/.test(user)) add('DL3002', users.at(-1)!.line, 'last USER should not be root');
    const health = stage.instructions.find((i) => i.keyword === 'HEALTHCHECK');
    if (!health) add('TG005', from.line, 'the runtime stage needs a HEALTHCHECK');
    else if (!health.args.includes('/api/health')) add('TG005', health.line, 'HEALTHCHECK must probe /api/health');
    for (const ins of stage.instructions) {
      if (ins.keyword === 'COPY' && ins.args.includes('--from=') && !ins.args.includes('--chown='))
        add('TG006', ins.line, 'COPY --from into the runtime stage needs an explicit --chown');
      if (ins.keyword === 'RUN' && /apt-get|apk add/.test(ins.args) && COMPILERS.test(ins.args))
        add('TG007', ins.line, 'compilers belong in the builder stage, not the runtime image');
    }
    const cmd = stage.instructions
      .filter((i) => i.keyword === 'CMD' || i.keyword === 'ENTRYPOINT')
      .map((i) => i.args)
      .join(' ');
    if (!cmd.includes('--no-node-snapshot'))
      add('TG008', from.line, 'node must run with --no-node-snapshot (isolated-vm)');
  }
  const builder = stages
    .slice(0, -1)
    .flatMap((s) => s.instructions)
    .filter((i) => i.keyword === 'RUN')
    .map((i) => i.args)
    .join('\n');
  if (stages.length > 1 && !/--omit=dev/.test(builder))
    add(
      'TG009',
      1,
      'the runtime gets production dependencies only: npm prune --omit=dev (or npm ci --omit=dev) in the builder',
    );
  return out.sort((a, b) => a.line - b.line);
}
