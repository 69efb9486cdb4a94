// Code examples for one /api call (POST, JSON body, key in X-API-Key) in six languages, for the debugger and
// the docs. Pure string building with no DOM, so it is unit-tested in Node. Each language gets its own quoting:
// a value the user typed (quotes, backslashes, newlines, Chinese, emoji) must come out as a literal that the
// language reads back as exactly that value.
export type Json = string | number | boolean | null | Json[] | { [k: string]: Json };

export type CodeLang = 'curl' | 'javascript' | 'python' | 'php' | 'go' | 'java';
export const CODE_LANGS: readonly CodeLang[] = ['curl', 'javascript', 'python', 'php', 'go', 'java'];
export const CODE_LANG_LABELS: Record<CodeLang, string> = {
  curl: 'curl',
  javascript: 'JavaScript',
  python: 'Python',
  php: 'PHP',
  go: 'Go',
  java: 'Java',
};

export interface ExampleRequest {
  /** Absolute URL, e.g. https://api.example.com/api/phone */
  url: string;
  apiKey: string;
  body: { [k: string]: Json };
}

const hex = (c: string, width: number): string => c.charCodeAt(0).toString(16).padStart(width, '0');

/** POSIX shell: inside single quotes nothing is special except the quote itself. */
export function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** JavaScript: a JSON string is a valid JS string literal (U+2028/2029 are legal in strings since ES2019). */
export function jsString(s: string): string {
  return JSON.stringify(s);
}

/** Double-quoted with backslash, quote and control characters escaped C-style (\n, \r, \t, \xHH); non-ASCII stays. */
function cStyleString(s: string): string {
  const body = s.replace(/[\\"\u0000-\u001f\u007f]/g, (c) => {
    if (c === '\\' || c === '"') return `\\${c}`;
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    return `\\x${hex(c, 2)}`;
  });
  return `"${body}"`;
}

/** Python 3: double-quoted, UTF-8 source (PEP 3120), so only backslash, quote and control characters are escaped. */
export function pyString(s: string): string {
  return cStyleString(s);
}

/** A Python literal for a JSON value: true/false/null become True/False/None. */
export function pyLiteral(v: Json): string {
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'None';
  if (typeof v === 'string') return pyString(v);
  if (Array.isArray(v)) return `[${v.map(pyLiteral).join(', ')}]`;
  return `{${Object.entries(v)
    .map(([k, x]) => `${pyString(k)}: ${pyLiteral(x)}`)
    .join(', ')}}`;
}

/** PHP single-quoted string: only \\ and \' are escapes; bytes (UTF-8) pass through. */
export function phpString(s: string): string {
  return `'${s.replace(/[\\']/g, (c) => `\\${c}`)}'`;
}

/** Go interpreted string literal; Go source is UTF-8 by definition, so non-ASCII stays readable. */
export function goString(s: string): string {
  return cStyleString(s);
}

/** Go raw string when possible (readable JSON); raw strings cannot hold a backtick and drop carriage returns. */
export function goBody(json: string): string {
  return /[`\r]/.test(json) ? goString(json) : `\`${json}\``;
}

/** Java string literal with every non-ASCII UTF-16 unit as \uXXXX, so it compiles whatever the source encoding. */
export function javaString(s: string): string {
  const body = s.replace(/[\\"\u0000-\u001f\u007f-\uffff]/g, (c) => {
    if (c === '\\' || c === '"') return `\\${c}`;
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    return `\\u${hex(c, 4)}`;
  });
  return `"${body}"`;
}

function curl(r: ExampleRequest): string {
  return [
    `curl -sS -X POST ${shQuote(r.url)} \\`,
    `  -H ${shQuote(`X-API-Key: ${r.apiKey}`)} \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d ${shQuote(JSON.stringify(r.body))}`,
  ].join('\n');
}

function javascript(r: ExampleRequest): string {
  const body = JSON.stringify(r.body, null, 2).replace(/\n/g, '\n  ');
  return [
    `const response = await fetch(${jsString(r.url)}, {`,
    `  method: "POST",`,
    `  headers: {`,
    `    "X-API-Key": ${jsString(r.apiKey)},`,
    `    "Content-Type": "application/json",`,
    `  },`,
    `  body: JSON.stringify(${body}),`,
    `});`,
    `const result = await response.json();`,
    `console.log(response.status, result);`,
  ].join('\n');
}

function python(r: ExampleRequest): string {
  return [
    `import requests`,
    ``,
    `response = requests.post(`,
    `    ${pyString(r.url)},`,
    `    headers={"X-API-Key": ${pyString(r.apiKey)}},`,
    `    json=${pyLiteral(r.body)},`,
    `    timeout=30,`,
    `)`,
    `print(response.status_code, response.json())`,
  ].join('\n');
}

function php(r: ExampleRequest): string {
  return [
    `<?php`,
    `$ch = curl_init(${phpString(r.url)});`,
    `curl_setopt_array($ch, [`,
    `    CURLOPT_POST => true,`,
    `    CURLOPT_HTTPHEADER => [${phpString(`X-API-Key: ${r.apiKey}`)}, 'Content-Type: application/json'],`,
    `    CURLOPT_POSTFIELDS => ${phpString(JSON.stringify(r.body))},`,
    `    CURLOPT_RETURNTRANSFER => true,`,
    `    CURLOPT_TIMEOUT => 30,`,
    `]);`,
    `$body = curl_exec($ch);`,
    `$status = curl_getinfo($ch, CURLINFO_RESPONSE_CODE);`,
    `curl_close($ch);`,
    `echo $status, ' ', $body, PHP_EOL;`,
  ].join('\n');
}

function go(r: ExampleRequest): string {
  return [
    `package main`,
    ``,
    `import (`,
    `\t"bytes"`,
    `\t"fmt"`,
    `\t"io"`,
    `\t"net/http"`,
    `)`,
    ``,
    `func main() {`,
    `\tbody := []byte(${goBody(JSON.stringify(r.body))})`,
    `\treq, err := http.NewRequest("POST", ${goString(r.url)}, bytes.NewReader(body))`,
    `\tif err != nil {`,
    `\t\tpanic(err)`,
    `\t}`,
    `\treq.Header.Set("X-API-Key", ${goString(r.apiKey)})`,
    `\treq.Header.Set("Content-Type", "application/json")`,
    `\tresp, err := http.DefaultClient.Do(req)`,
    `\tif err != nil {`,
    `\t\tpanic(err)`,
    `\t}`,
    `\tdefer resp.Body.Close()`,
    `\tout, _ := io.ReadAll(resp.Body)`,
    `\tfmt.Println(resp.StatusCode, string(out))`,
    `}`,
  ].join('\n');
}

function java(r: ExampleRequest): string {
  return [
    `import java.net.URI;`,
    `import java.net.http.HttpClient;`,
    `import java.net.http.HttpRequest;`,
    `import java.net.http.HttpResponse;`,
    ``,
    `public class TollgateExample {`,
    `    public static void main(String[] args) throws Exception {`,
    `        HttpRequest request = HttpRequest.newBuilder(URI.create(${javaString(r.url)}))`,
    `            .header("X-API-Key", ${javaString(r.apiKey)})`,
    `            .header("Content-Type", "application/json")`,
    `            .POST(HttpRequest.BodyPublishers.ofString(${javaString(JSON.stringify(r.body))}))`,
    `            .build();`,
    `        HttpResponse<String> response = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());`,
    `        System.out.println(response.statusCode() + " " + response.body());`,
    `    }`,
    `}`,
  ].join('\n');
}

const GENERATORS: Record<CodeLang, (r: ExampleRequest) => string> = { curl, javascript, python, php, go, java };

export function codeExample(lang: CodeLang, r: ExampleRequest): string {
  return GENERATORS[lang](r);
}

export function codeExamples(r: ExampleRequest): Record<CodeLang, string> {
  return Object.fromEntries(CODE_LANGS.map((l) => [l, codeExample(l, r)])) as Record<CodeLang, string>;
}
