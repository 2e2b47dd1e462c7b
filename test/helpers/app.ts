import type { Class } from '@lib/core';
import { RestApplication, type RestApplicationOptions } from '@lib/rest';

import { fetchAnswer, type Answer, type RequestHeaders } from './http.js';

export interface ServedApplication {
  readonly app: RestApplication;
  readonly origin: string;
  send(method: string, path: string, headers?: RequestHeaders): Promise<Answer>;
  close(): Promise<void>;
}

/** Creates the application and serves it on 127.0.0.1 with an ephemeral port. */
export async function serveApplication(rootModule: Class, options?: RestApplicationOptions): Promise<ServedApplication> {
  const app = await RestApplication.create(rootModule, options);
  const { port } = await app.listen(0, '127.0.0.1');
  const origin = `http://127.0.0.1:${port}`;
  return {
    app,
    origin,
    send: (method, path, headers) => fetchAnswer(origin + path, method, headers),
    close: () => app.close(),
  };
}
