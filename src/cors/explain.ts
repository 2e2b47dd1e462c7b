import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';

import { corsCheck, preflightCheck, splitList, type CheckFailure, type ReasonCode, type SeenAnswer } from './browser-checks.js';
import { isWellFormedOrigin } from './http-grammar.js';
import type { PathTable } from './path-table.js';

/** A request to explain: `{ method, url, headers }`, or an IncomingMessage. */
export interface ExplainRequest {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  readonly headers: IncomingHttpHeaders | Readonly<Record<string, string | readonly string[] | undefined>>;
}

export interface ExplainOptions {
  /** The page's fetch() sends credentials (`credentials: 'include'`). Default `false`. */
  readonly credentials?: boolean;
}

export interface Explanation {
  /** The path is covered by the engine. */
  readonly covered: boolean;
  readonly kind: 'preflight' | 'options' | 'actual' | 'not-cors';
  /** The browser's verdict: the page may go on (preflight) or read the answer. */
  readonly allowed: boolean;
  readonly reason: ReasonCode;
  /** One sentence naming the option to change. */
  readonly message: string;
  /** The CORS headers the engine would send (names in lower case). */
  readonly headers: Readonly<Record<string, string>>;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

const LOCAL_NETWORK_NOTE =
  ' Note: the request asks for private network access, which Chromium replaced with Local Network Access, a permission only the user can ' +
  'grant; no response header grants it.';

/**
 * Runs `handle` on a recording stand-in for the response (nothing is sent; the request's own
 * socket is never touched), then judges what it recorded as a browser would.
 */
export async function explainRequest(handle: Handler, table: PathTable | undefined, request: ExplainRequest, options: ExplainOptions): Promise<Explanation> {
  const headers = lowerCaseHeaders(request.headers);
  const method = request.method ?? 'GET';
  const url = request.url ?? '/';
  const origin = headers.origin;
  const requestedMethod = headers['access-control-request-method'];
  const kind =
    origin === undefined
      ? method === 'OPTIONS'
        ? 'options'
        : 'not-cors'
      : method !== 'OPTIONS'
        ? 'actual'
        : requestedMethod === undefined
          ? 'options'
          : 'preflight';
  const note = headers['access-control-request-private-network'] === 'true' ? LOCAL_NETWORK_NOTE : '';
  const path = url.split('?')[0];
  if (table === undefined) {
    const message =
      origin === undefined
        ? `${path} is not covered, and the request has no Origin: no CORS check applies.`
        : `${path} is not covered, so the engine adds nothing and the application's own answer decides: cover it with route() or mirror(), or register no route to cover every path.`;
    return {
      covered: false,
      kind,
      allowed: origin === undefined,
      reason: origin === undefined ? 'not-cors' : 'not-covered',
      message: message + note,
      headers: {},
    };
  }

  const recorded = await record(handle, { method, url, headers } as unknown as IncomingMessage);
  const seen: SeenAnswer = { status: recorded.status, headers: recorded.headers };
  const base = { covered: true, kind, headers: recorded.headers } as const;
  if (origin === undefined) {
    return {
      ...base,
      allowed: true,
      reason: 'not-cors',
      message: `No Origin: not a CORS request, so the browser applies no CORS check to ${table.route}.${note}`,
    };
  }
  const credentials = options.credentials ?? false;
  const failure =
    kind === 'preflight'
      ? preflightCheck(
          origin,
          requestedMethod!,
          splitList(headers['access-control-request-headers']).map((name) => name.toLowerCase()),
          seen,
          credentials,
        )
      : corsCheck(origin, seen, credentials);
  if (failure === undefined) {
    if (kind === 'preflight' && recorded.handedOn) {
      return {
        ...base,
        allowed: true,
        reason: 'preflight-continued',
        message: `preflightContinue is set for ${table.route}: the grant is set, and the application's answer must be a 2xx.${note}`,
      };
    }
    return {
      ...base,
      allowed: true,
      reason: 'allowed',
      message: `${origin} may ${kind === 'preflight' ? `send ${requestedMethod} to` : 'read the answers of'} ${table.route}.${note}`,
    };
  }
  const refusal = describe(failure, table, origin, headers);
  return { ...base, allowed: false, reason: refusal.reason, message: refusal.message + note };
}

/** The refusal in the engine's terms: the option of `table`'s route to change. */
function describe(failure: CheckFailure, table: PathTable, origin: string, headers: Record<string, string>): { reason: ReasonCode; message: string } {
  const route = table.route;
  const policy = table.policy;
  switch (failure.code) {
    case 'origin-not-allowed':
      if (policy.origin.kind === 'none')
        return { reason: 'cors-off', message: `CORS is off for ${route} (origin: false): set origin to the origins that may read it.` };
      if (origin === 'null')
        return {
          reason: 'origin-not-allowed',
          message: `Origin "null" (a sandboxed frame, a file: page) is allowed for ${route} only when 'null' is listed in origin.`,
        };
      if (!isWellFormedOrigin(origin))
        return {
          reason: 'origin-not-allowed',
          message: `${JSON.stringify(origin)} is not an origin a browser sends, so no origin policy of ${route} allows it.`,
        };
      return { reason: 'origin-not-allowed', message: `${origin} is not allowed by origin for ${route}: add it to origin.` };
    case 'origin-mismatch': {
      const only = policy.origin.kind === 'fixed' ? policy.origin.origin : 'another origin';
      return {
        reason: 'origin-mismatch',
        message: `${origin} is not allowed by origin for ${route}, which allows ${only} only: add ${origin} to origin (a list).`,
      };
    }
    case 'wildcard-with-credentials':
      return {
        reason: 'wildcard-with-credentials',
        message: `${route} answers Access-Control-Allow-Origin: * (origin: '*'), which a credentialed request never accepts: list the origins in origin and set allowCredentials: true.`,
      };
    case 'credentials-not-allowed':
      return {
        reason: 'credentials-not-allowed',
        message: `allowCredentials is not set for ${route}, and the request sends credentials: set allowCredentials: true.`,
      };
    case 'method-not-allowed': {
      const method = headers['access-control-request-method'];
      return policy.allowedMethods !== undefined
        ? { reason: 'method-not-allowed', message: `${method} is not in allowedMethods for ${route}.` }
        : {
            reason: 'method-not-allowed',
            message: `${method} is not a method ${route} registers (${table.allow}): register it with route(), or list it in allowedMethods.`,
          };
    }
    case 'header-not-allowed': {
      const name = failure.detail.split(' ')[0];
      return policy.allowedHeaders !== undefined
        ? { reason: 'header-not-allowed', message: `${name} is not in allowedHeaders for ${route}.` }
        : {
            reason: 'header-not-allowed',
            message: `The Access-Control-Request-Headers list was not reflected for ${route}: it has more than 64 names, more than 4 KiB, or a name that is not a token.`,
          };
    }
    default:
      return { reason: failure.code, message: `${failure.detail} (${route}).` };
  }
}

interface Recorded {
  status: number;
  headers: Record<string, string>;
  /** The engine called next(): the application answers. */
  handedOn: boolean;
}

/** Just enough of a ServerResponse to record what the engine sets; nothing reaches a socket. */
function record(handle: Handler, req: IncomingMessage): Promise<Recorded> {
  const headers = new Map<string, string | readonly string[]>();
  return new Promise((resolve) => {
    const recorded = (handedOn: boolean) => {
      const flat: Record<string, string> = {};
      for (const [name, value] of headers) flat[name] = typeof value === 'string' ? value : value.join(', ');
      resolve({ status: res.statusCode, headers: flat, handedOn });
    };
    const res = {
      statusCode: 200,
      headersSent: false,
      setHeader(name: string, value: string | number | readonly string[]) {
        headers.set(name.toLowerCase(), typeof value === 'number' ? String(value) : value);
        return this;
      },
      getHeader: (name: string) => headers.get(name.toLowerCase()),
      hasHeader: (name: string) => headers.has(name.toLowerCase()),
      removeHeader: (name: string) => headers.delete(name.toLowerCase()),
      getHeaderNames: () => [...headers.keys()],
      writeHead(status: number, pairs: readonly string[] = []) {
        res.statusCode = status;
        for (let i = 0; i < pairs.length; i += 2) headers.set(pairs[i]!.toLowerCase(), pairs[i + 1]!);
        return this;
      },
      end() {
        recorded(false);
        return this;
      },
    };
    handle(req, res as unknown as ServerResponse, () => recorded(true));
  });
}

function lowerCaseHeaders(headers: ExplainRequest['headers']): Record<string, string> {
  const lower: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) lower[name.toLowerCase()] = typeof value === 'string' ? value : value.join(', ');
  }
  return lower;
}
