// A CommonJS Express app, as most Express apps in the wild are: require(), no build step, no babel.
const express = require('express');
const { createCors } = require('@lib/cors/express');

function createApp() {
  const app = express();
  const cors = createCors({ origin: ['https://app.example.com', 'https://admin.example.com'], maxAge: 600 });
  app.use(cors);
  app.get('/posts', cors.route({ origin: '*' }), (_req, res) => res.json([{ id: 1 }]));
  app.put('/posts/:id', (req, res) => res.json({ id: req.params.id }));
  return app;
}

module.exports = { createApp };
