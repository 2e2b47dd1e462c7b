// A route written with no CORS of its own: proxy.ts covers it with the base policy.
export async function GET() {
  return Response.json({ plain: true });
}

export async function POST() {
  return Response.json({ plain: 'posted' });
}
