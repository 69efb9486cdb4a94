// A small reader of the Prometheus text format for the metrics tests: samples by `name{labels}`, HELP and TYPE.
export interface Exposition {
  samples: Map<string, number>;
  help: Map<string, string>;
  type: Map<string, string>;
}

export function parseExposition(text: string): Exposition {
  const out: Exposition = { samples: new Map(), help: new Map(), type: new Map() };
  for (const line of text.split('\n')) {
    const meta = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
    if (meta) (meta[1] === 'HELP' ? out.help : out.type).set(meta[2]!, meta[3]!);
    else if (line && !line.startsWith('#')) {
      const at = line.lastIndexOf(' ');
      out.samples.set(line.slice(0, at), Number(line.slice(at + 1)));
    }
  }
  return out;
}
