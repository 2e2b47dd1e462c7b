/**
 * What the examples print is what they do: each example started as `npm start` (or
 * `npm run example -- <name>`) starts it, the curl commands it prints run as printed, with the
 * real curl, against it, and each answer shows what the text before the command says. Every
 * printed command has its claim here, and every claim its printed command.
 */
import { execFile } from 'node:child_process';

import t, { type Test } from 'tap';

import { startExampleOutput } from '../helpers/example.js';
import { startPostgres, startRedis } from '../helpers/stores.js';

interface CurlAnswer {
  status: number;
  /** Lower-case names; a repeated header's values joined by ', ' (Set-Cookie: kept apart in `cookies`). */
  headers: Record<string, string>;
  cookies: string[];
  body: string;
}

type Claim = (t: Test, answer: CurlAnswer, origin: string | undefined) => void;

const ALL_OF_USERS = 'GET, HEAD, OPTIONS';

/** Per example, per label printed before a curl command: what its answer must show. */
const CLAIMS: Record<string, Record<string, Claim>> = {
  'default-settings': {
    'plain OPTIONS': (t, answer) => {
      t.equal(answer.status, 204);
      t.equal(answer.headers.allow, ALL_OF_USERS, 'the methods of the path');
      t.notOk('access-control-allow-methods' in answer.headers, 'no preflight grant: it is no preflight');
    },
    'OPTIONS CORS request': (t, answer) => {
      t.equal(answer.status, 204);
      t.equal(answer.headers.allow, ALL_OF_USERS);
      t.equal(answer.headers['access-control-allow-origin'], '*', "the defaults: every origin, as '*'");
      t.notOk('access-control-allow-methods' in answer.headers, 'no preflight grant: it is no preflight');
    },
    'simple CORS request': (t, answer) => {
      t.equal(answer.status, 200);
      t.equal(answer.headers['access-control-allow-origin'], '*');
      t.same(JSON.parse(answer.body), [{ id: 1, name: 'Ada' }], "the handler's answer");
    },
    preflight: (t, answer) => {
      t.equal(answer.status, 204);
      t.equal(answer.headers['access-control-allow-origin'], '*');
      t.match(answer.headers['access-control-allow-methods'], /\bPOST\b/, 'the method asked for');
      t.equal(answer.headers['access-control-allow-headers'], 'content-type, x-request-id', 'the headers asked for');
      t.equal(answer.body, '');
    },
    'with credentials': (t, answer, origin) => {
      t.equal(answer.status, 200);
      t.equal(answer.headers['access-control-allow-origin'], origin, 'the asking origin, echoed: never * with credentials');
      t.equal(answer.headers['access-control-allow-credentials'], 'true');
      t.match(answer.headers.vary, /\bOrigin\b/, 'an echoed origin varies with the request');
      t.same(answer.cookies, ['one=value%20for%20one; Path=/; HttpOnly'], 'the cookie CorsService set');
    },
  },
  'module-options': {
    allowed: (t, answer, origin) => t.equal(answer.headers['access-control-allow-origin'], origin),
    refused: (t, answer, origin) => t.not(answer.headers['access-control-allow-origin'], origin, 'another origin than the asking one: the browser refuses'),
    preflight: (t, answer, origin) => {
      t.equal(answer.status, 204);
      t.equal(answer.headers['access-control-allow-origin'], origin);
      t.match(answer.headers['access-control-allow-methods'], /\bPATCH\b/);
    },
    credentials: (t, answer, origin) => {
      t.equal(answer.headers['access-control-allow-origin'], origin);
      t.equal(answer.headers['access-control-allow-credentials'], 'true');
      t.equal(answer.cookies.length, 1);
    },
  },
  'route-options': {
    "module's route options": (t, answer) => t.equal(answer.headers['access-control-allow-origin'], 'https://example.com'),
    'merged with controller': (t, answer) => {
      t.equal(answer.headers['access-control-allow-origin'], 'https://example.com', "the module's origin");
      t.equal(answer.headers['access-control-max-age'], '600', "the controller's maxAge");
    },
    'controller override': (t, answer) => t.equal(answer.headers['access-control-allow-origin'], '*'),
  },
  cookies: {
    'log in': (t, answer, origin) => {
      t.equal(answer.headers['access-control-allow-origin'], origin);
      t.equal(answer.headers['access-control-allow-credentials'], 'true');
      t.equal(answer.cookies.length, 2);
    },
    refused: (t, answer) => t.notOk('access-control-allow-origin' in answer.headers, 'no origin granted'),
    preflight: (t, answer, origin) => {
      t.equal(answer.headers['access-control-allow-origin'], origin);
      t.equal(answer.headers['access-control-allow-credentials'], 'true');
      t.match(answer.headers['access-control-allow-methods'], /\bGET\b/);
    },
  },
};

/** The words of a printed command, as a POSIX shell splits them: only single quotes are used. */
function words(command: string): string[] {
  const found: string[] = [];
  for (const match of command.matchAll(/'([^']*)'|(\S+)/g)) {
    if (match[2] !== undefined && /["\\$`;&|<>']/.test(match[2])) throw new Error(`not a plain word: ${match[2]} in ${command}`);
    found.push(match[1] ?? match[2]!);
  }
  return found;
}

function curl(args: string[]): Promise<CurlAnswer> {
  return new Promise((resolve, reject) => {
    execFile('curl', args, { timeout: 10_000 }, (error, stdout) => {
      if (error !== null) return reject(error);
      const end = stdout.indexOf('\r\n\r\n');
      const [statusLine, ...lines] = stdout.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      const cookies: string[] = [];
      for (const line of lines) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).toLowerCase();
        const value = line.slice(colon + 1).trim();
        if (name === 'set-cookie') cookies.push(value);
        else headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
      }
      resolve({ status: Number(/^HTTP\/\S+ (\d{3})/.exec(statusLine ?? '')?.[1]), headers, cookies, body: stdout.slice(end + 4) });
    });
  });
}

/** The origin-store examples' commands, in the order printed: a grant, the grant seen, a revocation, the revocation seen. */
const ORIGIN_STORE_CLAIMS: Record<string, Claim> = {
  grant: (t, answer) => t.equal(answer.body, 'done\n'),
  ask: (t, answer) => {
    t.equal(answer.status, 200);
    t.equal(answer.headers['access-control-allow-origin'], 'https://app.acme.test', 'granted from the store');
    t.equal(answer.headers['access-control-allow-credentials'], 'true');
  },
  revoke: (t, answer) => t.equal(answer.body, 'done\n'),
  'ask again': (t, answer) => {
    t.equal(answer.status, 200);
    t.notOk('access-control-allow-origin' in answer.headers, 'revoked: no grant, with a minute of the cached verdict left');
  },
};
CLAIMS['origin-store-redis'] = ORIGIN_STORE_CLAIMS;
CLAIMS['origin-store-postgres'] = ORIGIN_STORE_CLAIMS;

/** What an example needs running beside it: the origin-store examples, their store (started by the test). */
const STORES: Record<string, (t: Test) => Promise<Record<string, string>>> = {
  'origin-store-redis': async (t) => ({ REDIS_URL: (await startRedis(t)).url }),
  'origin-store-postgres': async (t) => ({ DATABASE_URL: (await startPostgres(t)).url }),
};

for (const [example, claims] of Object.entries(CLAIMS)) {
  t.test(`${example}: each printed curl command shows what its text says`, async (t) => {
    const { url, output, errors } = await startExampleOutput(t, example, await (STORES[example]?.(t) ?? {}));
    const printed = [...output.matchAll(/^ {2}(.+?): +(curl .*)$/gm)].map((match) => ({ label: match[1]!, command: match[2]! }));
    t.same(
      printed.map(({ label }) => label),
      Object.keys(claims),
      'a claim for every printed command, and a printed command for every claim',
    );
    t.equal(errors, '', 'it starts without a warning');
    for (const { label, command } of printed) {
      const [program, ...args] = words(command);
      t.equal(program, 'curl');
      t.ok(
        args.some((arg) => arg.startsWith(url)),
        `${label}: against the example's own URL`,
      );
      const origin = args.find((_arg, index) => args[index - 1] === '-H' && /^Origin: /i.test(args[index - 1 + 1]!))?.replace(/^Origin: /i, '');
      const answer = await curl(args);
      t.test(`${label}: ${command.replace(url, '')}`, async (t) => claims[label]!(t, answer, origin));
    }
  });
}
