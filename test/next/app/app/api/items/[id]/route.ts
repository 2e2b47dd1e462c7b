import { NextResponse } from 'next/server';
import { redirect } from 'next/navigation';

import { APP, cors } from '../../../../lib/cors';

type Context = { params: Promise<{ id: string }> };

export const { GET, DELETE, OPTIONS } = cors.route(
  {
    GET: async (request: Request, { params }: Context) => {
      const { id } = await params;
      if (id === 'missing') return Response.json({ error: 'not found' }, { status: 404 });
      if (id === 'boom') throw new Error('the handler failed');
      if (id === 'moved') return NextResponse.redirect(new URL('/api/items/a', request.url));
      if (id === 'thrown-redirect') redirect('/api/items/a');
      if (id === 'stream') {
        const body = new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('one,'));
            controller.enqueue(new TextEncoder().encode('two'));
            controller.close();
          },
        });
        return new Response(body, { headers: { 'content-type': 'text/plain', vary: 'Accept' } });
      }
      return Response.json({ id });
    },
    DELETE: async (_request: Request, { params }: Context) => Response.json({ deleted: (await params).id }),
  },
  { exposedHeaders: ['X-Item'], DELETE: { origin: APP, allowCredentials: true } },
);
