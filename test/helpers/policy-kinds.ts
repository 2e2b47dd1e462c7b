/**
 * One origin policy or more of every kind of docs/CONTRACT.md section 2, each with an origin it
 * allows and one it refuses: the table the contract, writer and cache suites run over.
 */
import type { CorsOptions } from '@lib/cors/standalone';

export interface PolicyCase {
  name: string;
  options: CorsOptions<unknown>;
  kind: 'any' | 'fixed' | 'dynamic' | 'off';
  allowed?: string;
  denied?: string;
}

const common = { exposedHeaders: ['X-Total'], maxAge: 600 } satisfies CorsOptions;

export const POLICY_CASES: readonly PolicyCase[] = [
  { name: "'*' (the default)", options: { ...common }, kind: 'any', allowed: 'https://anyone.test' },
  {
    name: 'one origin',
    options: { ...common, origin: 'https://app.example.com' },
    kind: 'fixed',
    allowed: 'https://app.example.com',
    denied: 'https://evil.example.com',
  },
  {
    name: 'a one-element list, with credentials',
    options: { ...common, origin: ['https://app.example.com'], allowCredentials: true },
    kind: 'fixed',
    allowed: 'https://app.example.com',
    denied: 'https://evil.example.com',
  },
  {
    name: 'a list, with credentials',
    options: { ...common, origin: ['https://a.example.com', 'https://b.example.com'], allowCredentials: true },
    kind: 'dynamic',
    allowed: 'https://b.example.com',
    denied: 'https://c.example.com',
  },
  {
    name: 'a wildcard pattern',
    options: { ...common, origin: 'https://*.example.com' },
    kind: 'dynamic',
    allowed: 'https://api.eu.example.com',
    denied: 'https://example.com',
  },
  {
    name: 'a RegExp',
    options: { ...common, origin: /^https:\/\/(?:www\.)?example\.org$/ },
    kind: 'dynamic',
    allowed: 'https://www.example.org',
    denied: 'https://example.org.evil.net',
  },
  {
    name: 'an async function',
    options: { ...common, origin: async (origin: string) => origin.endsWith('.trusted.test') },
    kind: 'dynamic',
    allowed: 'https://x.trusted.test',
    denied: 'https://trusted.test.evil',
  },
  {
    name: 'a sync function',
    options: { ...common, origin: (origin: string) => origin === 'http://localhost:5173' },
    kind: 'dynamic',
    allowed: 'http://localhost:5173',
    denied: 'http://localhost:5174',
  },
  { name: 'reflection (true)', options: { ...common, origin: true }, kind: 'dynamic', allowed: 'https://whoever.test', denied: 'null' },
  { name: 'CORS off (false)', options: { ...common, origin: false }, kind: 'off', denied: 'https://app.example.com' },
];

/** The request kinds of CONTRACT.md section 3, as method and headers, for a given Origin (or none). */
export function requestOfRow(row: 1 | 2 | 3 | 4 | 5, origin: string | undefined): { method: string; headers: Record<string, string> } {
  const from: Record<string, string> = origin === undefined ? {} : { Origin: origin };
  switch (row) {
    case 1:
      return { method: 'OPTIONS', headers: {} };
    case 2:
      return { method: 'OPTIONS', headers: from };
    case 3:
      return { method: 'POST', headers: from };
    case 4:
      return { method: 'OPTIONS', headers: { ...from, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type,x-foo' } };
    case 5:
      return { method: 'GET', headers: {} };
  }
}
