// The headers as Next.js's documentation of route handlers sets them by hand, with an OPTIONS
// export for the preflight, for the one origin the other variants allow.
const corsHeaders = {
  'Access-Control-Allow-Origin': 'https://app.example.com',
  'Access-Control-Allow-Methods': 'GET, OPTIONS',
  'Access-Control-Allow-Headers': 'Content-Type, Authorization',
};

export async function OPTIONS() {
  return new Response(null, { status: 204, headers: corsHeaders });
}

export async function GET() {
  return Response.json({ ok: true }, { headers: corsHeaders });
}
